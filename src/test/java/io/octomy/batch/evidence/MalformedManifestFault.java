package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.Executor;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.MockApi;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.ResourceNames;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * (d) Generated malformed manifests, sent (1) to the embedded API server, whose CRD schema and CEL
 * rules should refuse them, and (2) straight to the controller through the fabric8 mock server in
 * CRUD mode, which validates nothing. The controller must not crash (every pass runs, a valid
 * canary job sent after them is decided), and every malformed job must be refused by the API or
 * Rejected with a message.
 */
final class MalformedManifestFault {

  record Result(
      String target,
      int sent,
      Map<String, Long> refusedByCode,
      long rejectedWithMessage,
      Map<String, Long> acceptedAndDecidedOtherwise,
      long undecided,
      long unservableNames,
      int passFailures,
      boolean canaryDecided,
      List<String> examples) {

    /**
     * Fuzzed names are the API server's business; a server that takes them leaves valid jobs
     * behind.
     */
    boolean passed() {
      long notNames =
          acceptedAndDecidedOtherwise.entrySet().stream()
              .filter(e -> !e.getKey().startsWith("fuzzed-name"))
              .mapToLong(Map.Entry::getValue)
              .sum();
      return passFailures == 0 && canaryDecided && undecided == 0 && notNames == 0;
    }

    @Override
    public String toString() {
      return String.format(
          "malformed manifests -> %s: %d sent; refused by the API %s; accepted and Rejected (InvalidSpec) with a"
              + " message %d; accepted and decided otherwise %s; undecided %d; names the server stored but cannot serve back"
              + " (no status write can reach them) %d; controller pass failures %d; canary decided %s",
          target,
          sent,
          refusedByCode,
          rejectedWithMessage,
          acceptedAndDecidedOtherwise,
          undecided,
          unservableNames,
          passFailures,
          canaryDecided);
    }
  }

  private MalformedManifestFault() {}

  static Result embedded(Path work, int n, long seed) throws Exception {
    try (Cluster c = new Cluster(work.resolve("state"))) {
      return run("embedded API server (schema + CEL)", c.client, n, seed);
    }
  }

  static Result mock(int n, long seed) throws Exception {
    KubernetesMockServer server = MockApi.crudServer();
    try (KubernetesClient client = server.createClient()) {
      MockApi.installCrds(client);
      return run("fabric8 mock server, CRUD mode (no validation)", client, n, seed);
    } finally {
      server.destroy();
    }
  }

  private static Result run(String target, KubernetesClient client, int n, long seed)
      throws Exception {
    Workload w = new Workload(2, 0, Executor.Process, seed, Duration.ofHours(1));
    for (int i = 0; i < 2; i++) {
      BatchNode node = client.resources(BatchNode.class).resource(w.node(i)).create();
      node.getSpec().setMode(NodeMode.Drone);
      node = client.resources(BatchNode.class).resource(node).update();
      node.setStatus(w.nodeStatus(i, Instant.now()));
      client.resources(BatchNode.class).resource(node).updateStatus();
    }
    BatchController controller =
        BatchController.start(
            client,
            new BatchController.ControllerOptions(
                w.policy(),
                false,
                "default",
                "127.0.0.1",
                -1,
                new AdmissionLoop.Settings(
                    Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(30), 8)),
            Clock.systemUTC());
    try {
      Map<String, Long> refused = new TreeMap<>();
      Map<String, String> accepted = new HashMap<>(); // name -> kind
      List<MalformedManifests.Manifest> all = MalformedManifests.generate(n, seed);
      var api =
          client
              .genericKubernetesResources("batch.octomy.io/v1alpha1", "BatchJob")
              .inNamespace("default");
      for (MalformedManifests.Manifest m : all) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion("batch.octomy.io/v1alpha1");
        r.setKind("BatchJob");
        r.setMetadata(new ObjectMeta());
        r.getMetadata().setName(m.name());
        r.getMetadata().setNamespace("default");
        r.setAdditionalProperty("spec", m.spec());
        try {
          api.resource(r).create();
          accepted.put(m.name(), m.kind());
        } catch (KubernetesClientException e) {
          refused.merge(Integer.toString(e.getCode()), 1L, Long::sum);
        }
      }
      BatchJob canary = w.job(0);
      canary.getMetadata().setName("canary");
      canary.getMetadata().setNamespace("default");
      canary.getSpec().setAfter(null);
      canary.getSpec().setOrigin(null);
      canary.getSpec().setGroup(null);
      client.resources(BatchJob.class).inNamespace("default").resource(canary).create();

      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      Map<String, BatchJob> seen = new HashMap<>();
      while (System.nanoTime() < deadline) {
        seen.clear();
        client
            .resources(BatchJob.class)
            .inNamespace("default")
            .list()
            .getItems()
            .forEach(j -> seen.put(j.getMetadata().getName(), j));
        boolean done =
            seen.containsKey("canary")
                && decided(seen.get("canary"))
                && accepted.keySet().stream()
                    .filter(k -> k.matches(ResourceNames.DNS_SUBDOMAIN_REGEX))
                    .allMatch(k -> seen.containsKey(k) && decided(seen.get(k)));
        if (done) {
          break;
        }
        Thread.sleep(250);
      }
      int passFailures = 0;
      for (int k = 0; k < 3; k++) {
        try {
          controller.loop().runPass();
        } catch (RuntimeException e) {
          passFailures++;
        }
      }
      long rejected = 0;
      long undecided = 0;
      long unservable = 0;
      Map<String, Long> other = new TreeMap<>();
      List<String> examples = new ArrayList<>();
      for (Map.Entry<String, String> e : accepted.entrySet()) {
        BatchJob j = seen.get(e.getKey());
        if ((j == null || !decided(j)) && !e.getKey().matches(ResourceNames.DNS_SUBDOMAIN_REGEX)) {
          // The mock stores any name but answers 404 to a status write at its URL-encoded path;
          // a real API server refuses such names at create.
          unservable++;
        } else if (j == null || !decided(j)) {
          undecided++;
        } else if (j.getStatus().getPhase() == JobPhase.Rejected
            && j.getStatus().getMessage() != null
            && !j.getStatus().getMessage().isBlank()) {
          rejected++;
          if (examples.size() < 12
              && examples.stream().noneMatch(x -> x.startsWith(e.getValue()))) {
            examples.add(
                e.getValue()
                    + ": "
                    + j.getStatus().getReason()
                    + ": "
                    + j.getStatus().getMessage());
          }
        } else {
          other.merge(e.getValue() + "->" + j.getStatus().getReason(), 1L, Long::sum);
        }
      }
      BatchJob c = seen.get("canary");
      return new Result(
          target,
          all.size(),
          refused,
          rejected,
          other,
          undecided,
          unservable,
          passFailures,
          c != null && decided(c),
          examples);
    } finally {
      controller.close();
    }
  }

  private static boolean decided(BatchJob j) {
    return j.getStatus() != null && j.getStatus().getReason() != null;
  }
}
