package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fabric8 client over HTTP, as users' fabric8 tools and a controller on a cluster use it: CRUD,
 * status patches, watches, informers, and the API-server semantics they rely on (status/spec split,
 * generation, resourceVersion, conflicts, finalizers). {@link InMemoryClientIT} runs the same over
 * the transport of standalone mode's own controller and agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Fabric8ClientIT {

  EmbeddedApiServer server;
  KubernetesClient client;

  @BeforeAll
  void start(@TempDir Path dir) {
    server = EmbeddedApiServer.start(dir, 0, List.of(TestCrds.sampleCrd()));
    client = connect(server);
  }

  /** The client under test. */
  KubernetesClient connect(EmbeddedApiServer server) {
    return new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
  }

  @AfterAll
  void stop() {
    client.close();
    server.close();
  }

  private static GenericKubernetesResource sample(String name, int size) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("test.octomy.io/v1alpha1")
        .withKind("Sample")
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .addToAdditionalProperties("spec", Map.of("size", size))
        .addToAdditionalProperties("status", Map.of("phase", "Ignored"))
        .build();
  }

  MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      samples() {
    return client.genericKubernetesResources(TestCrds.SAMPLES);
  }

  @Test
  void createSetsServerMetadataDropsStatusAndAppliesDefaults() {
    GenericKubernetesResource created =
        samples().inNamespace("default").resource(sample("meta", 1)).create();
    assertThat(created.getMetadata().getUid()).isNotBlank();
    assertThat(created.getMetadata().getCreationTimestamp()).isNotBlank();
    assertThat(created.getMetadata().getGeneration()).isEqualTo(1L);
    assertThat(Long.parseLong(created.getMetadata().getResourceVersion())).isPositive();
    assertThat(created.getAdditionalProperties()).doesNotContainKey("status");
    assertThat(created.get("spec", "mode").toString()).isEqualTo("Fast");

    assertThat(samples().inNamespace("default").withName("meta").get().getMetadata().getUid())
        .isEqualTo(created.getMetadata().getUid());
    assertThat(samples().inNamespace("default").list().getItems())
        .extracting(r -> r.getMetadata().getName())
        .contains("meta");
    assertThatThrownBy(() -> samples().inNamespace("default").resource(sample("meta", 1)).create())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(409));
  }

  @Test
  void statusAndSpecAreWrittenApartAndGenerationFollowsTheSpec() {
    samples().inNamespace("default").resource(sample("split", 1)).create();
    GenericKubernetesResource withStatus = sample("split", 99);
    withStatus.setAdditionalProperty("status", Map.of("phase", "Running"));
    GenericKubernetesResource afterStatus =
        samples().inNamespace("default").resource(withStatus).patchStatus();
    assertThat(afterStatus.get("status", "phase").toString()).isEqualTo("Running");
    assertThat(afterStatus.get("spec", "size").toString())
        .as("a status write never changes spec")
        .isEqualTo("1");
    assertThat(afterStatus.getMetadata().getGeneration()).isEqualTo(1L);

    GenericKubernetesResource afterSpec =
        samples()
            .inNamespace("default")
            .withName("split")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"size\":2},\"status\":{\"phase\":\"Hacked\"}}");
    assertThat(afterSpec.get("spec", "size").toString()).isEqualTo("2");
    assertThat(afterSpec.get("status", "phase").toString())
        .as("a main write never changes status")
        .isEqualTo("Running");
    assertThat(afterSpec.getMetadata().getGeneration()).isEqualTo(2L);

    GenericKubernetesResource labelled =
        samples()
            .inNamespace("default")
            .withName("split")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
    assertThat(labelled.getMetadata().getGeneration())
        .as("metadata changes keep the generation")
        .isEqualTo(2L);
    assertThat(Long.parseLong(labelled.getMetadata().getResourceVersion()))
        .isGreaterThan(Long.parseLong(afterSpec.getMetadata().getResourceVersion()));

    GenericKubernetesResource same =
        samples()
            .inNamespace("default")
            .withName("split")
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"size\":2}}");
    assertThat(same.getMetadata().getResourceVersion())
        .as("a no-op write keeps the resourceVersion")
        .isEqualTo(labelled.getMetadata().getResourceVersion());
  }

  @Test
  void staleResourceVersionConflicts() {
    GenericKubernetesResource created =
        samples().inNamespace("default").resource(sample("stale", 1)).create();
    samples()
        .inNamespace("default")
        .withName("stale")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"size\":3}}");
    created.setAdditionalProperty("spec", Map.of("size", 4));
    assertThatThrownBy(() -> samples().inNamespace("default").resource(created).update())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(409));
  }

  @Test
  void serverSideApplyIsTreatedAsMergeAndCreates() {
    GenericKubernetesResource applied =
        samples()
            .inNamespace("default")
            .resource(sample("ssa", 7))
            .fieldManager("test")
            .forceConflicts()
            .serverSideApply();
    assertThat(applied.get("spec", "size").toString()).isEqualTo("7");
    GenericKubernetesResource again = sample("ssa", 8);
    again.setAdditionalProperty("spec", Map.of("size", 8, "owner", "bob"));
    applied =
        samples()
            .inNamespace("default")
            .resource(again)
            .fieldManager("test")
            .forceConflicts()
            .serverSideApply();
    assertThat(applied.get("spec", "owner").toString()).isEqualTo("bob");
    assertThat(applied.getMetadata().getGeneration()).isEqualTo(2L);
  }

  @Test
  void invalidObjectsAreRefusedWith422() {
    GenericKubernetesResource bad = sample("too-big", 500);
    assertThatThrownBy(() -> samples().inNamespace("default").resource(bad).create())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(
            e -> {
              KubernetesClientException k = (KubernetesClientException) e;
              assertThat(k.getCode()).isEqualTo(422);
              assertThat(k.getStatus().getReason()).isEqualTo("Invalid");
              assertThat(k.getStatus().getDetails().getCauses())
                  .extracting(c -> c.getField())
                  .containsExactly("spec.size");
              assertThat(k.getMessage())
                  .contains("spec.size in body should be less than or equal to 100");
            });
  }

  @Test
  void watchSeesAddModifyDelete() throws Exception {
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    try (Watch ignored =
        samples()
            .inNamespace("default")
            .withLabel("w", "yes")
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, GenericKubernetesResource r) {
                    events.add(action + " " + r.getMetadata().getName() + " " + r.get("status"));
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    events.add("CLOSED");
                  }
                })) {
      GenericKubernetesResource s = sample("watched", 1);
      s.getMetadata().setLabels(Map.of("w", "yes"));
      samples().inNamespace("default").resource(s).create();
      s.setAdditionalProperty("status", Map.of("phase", "Done"));
      samples().inNamespace("default").resource(s).patchStatus();
      samples().inNamespace("default").withName("watched").delete();
      assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("ADDED watched null");
      assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("MODIFIED watched {phase=Done}");
      assertThat(events.poll(10, TimeUnit.SECONDS)).isEqualTo("DELETED watched {phase=Done}");
    }
  }

  @Test
  void informerListsThenFollowsChanges() throws Exception {
    samples().inNamespace("default").resource(sample("before-informer", 1)).create();
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    SharedIndexInformer<GenericKubernetesResource> informer =
        samples()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource r) {
                    events.add("add " + r.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(
                      GenericKubernetesResource oldR, GenericKubernetesResource newR) {
                    events.add(
                        "update "
                            + newR.getMetadata().getName()
                            + " "
                            + newR.get("status", "phase"));
                  }

                  @Override
                  public void onDelete(GenericKubernetesResource r, boolean unknown) {
                    events.add("delete " + r.getMetadata().getName());
                  }
                });
    try {
      assertThat(informer.hasSynced()).isTrue();
      assertThat(informer.getStore().list())
          .extracting(r -> r.getMetadata().getName())
          .contains("before-informer");
      GenericKubernetesResource s = sample("during-informer", 1);
      samples().inNamespace("default").resource(s).create();
      s.setAdditionalProperty("status", Map.of("phase", "Admitted"));
      samples().inNamespace("default").resource(s).patchStatus();
      samples().inNamespace("default").withName("during-informer").delete();
      List<String> seen = new ArrayList<>();
      while (!seen.contains("delete during-informer")) {
        String e = events.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("events so far: " + seen).isNotNull();
        seen.add(e);
      }
      assertThat(seen)
          .containsSubsequence(
              "add during-informer", "update during-informer Admitted", "delete during-informer");
    } finally {
      informer.close();
    }
  }

  @Test
  void finalizersHoldDeletionUntilRemoved() {
    GenericKubernetesResource s = sample("final", 1);
    s.getMetadata().setFinalizers(List.of("octomy.io/cleanup"));
    samples().inNamespace("default").resource(s).create();
    samples().inNamespace("default").withName("final").delete();
    GenericKubernetesResource marked = samples().inNamespace("default").withName("final").get();
    assertThat(marked.getMetadata().getDeletionTimestamp()).isNotBlank();
    samples()
        .inNamespace("default")
        .withName("final")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    assertThat(samples().inNamespace("default").withName("final").get()).isNull();
  }

  @Test
  void coreKindsTheProductNeedsWork() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("studio").endMetadata().build())
        .create();
    assertThat(client.namespaces().withName("studio").get().getStatus().getPhase())
        .isEqualTo("Active");
    client
        .configMaps()
        .inNamespace("studio")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("policy")
                .endMetadata()
                .addToData("policy.yaml", "groups: {}")
                .build())
        .create();
    assertThat(client.configMaps().inNamespace("studio").withName("policy").get().getData())
        .containsEntry("policy.yaml", "groups: {}");
    client
        .leases()
        .inNamespace("default")
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("octomy-leader")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("me")
                .endSpec()
                .build())
        .create();
    assertThat(
            client
                .leases()
                .inNamespace("default")
                .withName("octomy-leader")
                .get()
                .getSpec()
                .getHolderIdentity())
        .isEqualTo("me");
    client
        .v1()
        .events()
        .inNamespace("default")
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName("e1")
                .endMetadata()
                .withReason("Admitted")
                .withNewInvolvedObject()
                .withKind("Sample")
                .withName("x")
                .endInvolvedObject()
                .build())
        .create();
    assertThat(
            client
                .v1()
                .events()
                .inNamespace("default")
                .withField("involvedObject.name", "x")
                .list()
                .getItems())
        .hasSize(1);
    assertThat(
            client
                .apiextensions()
                .v1()
                .customResourceDefinitions()
                .withName("samples.test.octomy.io")
                .get()
                .getSpec()
                .getNames()
                .getShortNames())
        .containsExactly("smp");

    client.namespaces().withName("studio").delete();
    assertThat(client.configMaps().inNamespace("studio").withName("policy").get()).isNull();
  }
}
