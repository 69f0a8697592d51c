package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.ResourceNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRDs in {@code crds/} on the real kube-apiserver (applied with kubectl, so its structural
 * schema checks and CEL cost estimator judge them), and the same manifests answered alike by the
 * real server and by standalone mode's embedded server: accepted by both, or refused by both with
 * 422 and the same field and message for every cause.
 */
class CrdConformanceIT {

  private static RealCluster real;
  private static EmbeddedApiServer standalone;
  private static KubernetesClient standaloneClient;
  private static final String NS = "conformance";

  /** The standalone server's state, removed after the class. */
  @TempDir static Path state;

  @BeforeAll
  static void servers() throws Exception {
    real = RealCluster.get();
    standalone = EmbeddedApiServer.start(state, 0, StandaloneRuntime.productCrds());
    standaloneClient = new KubernetesClientBuilder().withConfig(standalone.clientConfig()).build();
    for (KubernetesClient c : List.of(real.admin(), standaloneClient)) {
      c.namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .serverSideApply();
    }
  }

  @AfterAll
  static void stop() {
    if (standaloneClient != null) {
      standaloneClient.close();
      standalone.close();
    }
  }

  @Test
  void theRealServerAcceptsTheCrdsAppliedWithKubectl() {
    KubectlRun.Result apply = real.crds();
    assertThat(apply.exitCode()).as(apply.all()).isZero();
    assertThat(apply.out())
        .contains("batchjobs.batch.octomy.io", "batchnodes.batch.octomy.io")
        .contains("batchjobprofiles.batch.octomy.io", "batchqueues.batch.octomy.io");
    KubectlRun.Result explain = real.kubectl().run("explain", "bj.spec.resources.requests");
    assertThat(explain.exitCode()).as(explain.all()).isZero();
    assertThat(explain.out()).contains("Reserved for the whole life of the job");
  }

  @Test
  void bothServersGiveTheSameAnswerToEveryManifest() {
    real.requireCrds();
    List<String> differences = new ArrayList<>();
    List<String> wrongVerdicts = new ArrayList<>();
    List<ConformanceCases.Case> cases = ConformanceCases.all();
    for (int i = 0; i < cases.size(); i++) {
      ConformanceCases.Case c = cases.get(i);
      String name = "case-" + i;
      Answer onReal = answer(real.admin(), c, name);
      Answer onStandalone = answer(standaloneClient, c, name);
      if (!onReal.equals(onStandalone)) {
        differences.add(c + ":\n    real:       " + onReal + "\n    standalone: " + onStandalone);
      }
      if (onReal.accepted() != c.good()) {
        wrongVerdicts.add(c + " (expected " + (c.good() ? "accepted" : "refused") + "): " + onReal);
      }
    }
    assertThat(wrongVerdicts).as("the real server's verdicts").isEmpty();
    assertThat(differences).as("answers that differ between the servers").isEmpty();
    assertThat(cases).hasSizeGreaterThan(30);
  }

  @Test
  void bothServersQuoteARefusedResourceNameInTheJavaValidatorsWords() {
    real.requireCrds();
    Map<String, String> says =
        Map.of(
            "node-no-domain-resource",
            "spec.resources: Invalid value: \"object\": " + ResourceNames.problem("gpu-slots"),
            "node-several-refused-resources",
            "spec.resources: Invalid value: \"object\": " + ResourceNames.problem("gpu-slots"),
            "job-no-domain-request",
            "spec.resources.requests: Invalid value: \"object\": "
                + ResourceNames.problem("cfd-cores"),
            "node-resource-with-line-break",
            "spec.resources: Invalid value: \"object\": resource names are a DNS domain, a slash"
                + " and a name, like example.com/su2-processes");
    says.forEach(
        (name, cause) -> {
          ConformanceCases.Case c = ConformanceCases.named(name);
          assertThat(answer(real.admin(), c, "quoted").causes())
              .as("real: " + c)
              .containsExactly(cause);
          assertThat(answer(standaloneClient, c, "quoted").causes())
              .as("standalone: " + c)
              .containsExactly(cause);
        });
  }

  /** An answer to a create: the HTTP code and every cause as "field: message", in order. */
  record Answer(int code, String message, List<String> causes) {
    boolean accepted() {
      return code == 201;
    }

    @Override
    public String toString() {
      return code + " " + causes + (causes.isEmpty() && code != 201 ? " " + message : "");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Answer a && a.code == code && a.causes.equals(causes);
    }

    @Override
    public int hashCode() {
      return code * 31 + causes.hashCode();
    }
  }

  private static Answer answer(KubernetesClient client, ConformanceCases.Case c, String name) {
    GenericKubernetesResource r =
        Serialization.unmarshal(c.yaml().replace("NAME", name), GenericKubernetesResource.class);
    boolean namespaced = !"BatchNode".equals(r.getKind()) && !"BatchQueue".equals(r.getKind());
    if (namespaced) {
      r.getMetadata().setNamespace(NS);
    }
    try {
      client.resource(r).create();
      client.resource(r).withTimeoutInMillis(10_000).delete();
      return new Answer(201, "", List.of());
    } catch (KubernetesClientException e) {
      List<String> causes = new ArrayList<>();
      if (e.getStatus() != null && e.getStatus().getDetails() != null) {
        for (StatusCause cause : e.getStatus().getDetails().getCauses()) {
          causes.add(cause.getField() + ": " + cause.getMessage());
        }
      }
      return new Answer(
          e.getCode(), e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage(), causes);
    }
  }

  static Path repo() {
    return Path.of("").toAbsolutePath();
  }
}
