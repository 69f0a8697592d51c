package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The template's first container read as a local process. */
class LaunchPlanTest {

  private static final RunKey KEY = new RunKey("studio", "mesh", "uid-1");

  private static BatchJob job(ContainerBuilder... containers) {
    BatchJob j = new BatchJob();
    BatchJobSpec spec = new BatchJobSpec();
    PodTemplateSpecBuilder t = new PodTemplateSpecBuilder();
    t.withNewSpec()
        .withContainers(Arrays.stream(containers).map(ContainerBuilder::build).toList())
        .endSpec();
    spec.setTemplate(t.build());
    j.setSpec(spec);
    return j;
  }

  @Test
  void argsFollowCommandAndEnvAndWorkingDirAreTaken() {
    LaunchPlan p =
        LaunchPlan.of(
            KEY,
            job(
                new ContainerBuilder()
                    .withName("main")
                    .withCommand("python3", "-m", "mesh")
                    .withArgs("--out", "/tmp/x")
                    .addNewEnv()
                    .withName("A")
                    .withValue("1")
                    .endEnv()
                    .addNewEnv()
                    .withName("EMPTY")
                    .endEnv()
                    .withWorkingDir("/srv/work"),
                new ContainerBuilder().withName("sidecar").withCommand("ignored")));
    assertThat(p.runnable()).isTrue();
    assertThat(p.spec().command()).containsExactly("python3", "-m", "mesh", "--out", "/tmp/x");
    assertThat(p.spec().env())
        .isEqualTo(
            Map.of(
                "OCTOMY_REPLICA_INDEX", "0",
                "OCTOMY_REPLICA_COUNT", "1",
                "OCTOMY_REPLICA_NODES", "",
                "A", "1",
                "EMPTY", ""));
    assertThat(p.spec().workingDir()).isEqualTo(Path.of("/srv/work"));
    assertThat(p.spec().key()).isEqualTo(KEY);
    assertThat(p.notes())
        .singleElement()
        .asString()
        .contains("only the first container (main) runs");
  }

  @Test
  void variableReferencesInCommandArgsAndEnvAreExpandedAsOnAPod() {
    LaunchPlan p =
        LaunchPlan.of(
            KEY,
            job(
                new ContainerBuilder()
                    .withCommand("solver", "--case", "$(CASE)")
                    .withArgs(
                        "--out", "$(OUT_DIR)/$(CASE).vtk", "--literal", "$$(CASE)", "$(UNSET)")
                    .addNewEnv()
                    .withName("CASE")
                    .withValue("wing-7")
                    .endEnv()
                    .addNewEnv()
                    .withName("OUT_DIR")
                    .withValue("/scratch/$(CASE)")
                    .endEnv()
                    .addNewEnv()
                    .withName("LATER")
                    .withValue("$(NEXT)")
                    .endEnv()
                    .addNewEnv()
                    .withName("NEXT")
                    .withValue("n")
                    .endEnv()));
    assertThat(p.spec().command())
        .containsExactly(
            "solver",
            "--case",
            "wing-7",
            "--out",
            "/scratch/wing-7/wing-7.vtk",
            "--literal",
            "$(CASE)",
            "$(UNSET)");
    // An env value sees only the variables defined before it.
    assertThat(p.spec().env())
        .containsEntry("OUT_DIR", "/scratch/wing-7")
        .containsEntry("LATER", "$(NEXT)");
  }

  @Test
  void aGangReplicaIsToldItsIndexTheCountAndEveryNodeAndCannotBeToldOtherwise() {
    BatchJob j =
        job(
            new ContainerBuilder()
                .withCommand("solver", "--rank", "$(OCTOMY_REPLICA_INDEX)")
                .addNewEnv()
                .withName("OCTOMY_REPLICA_INDEX")
                .withValue("7")
                .endEnv()
                .addNewEnv()
                .withName("PEERS")
                .withValue("$(OCTOMY_REPLICA_NODES)")
                .endEnv());
    j.setStatus(new BatchJobStatus());
    j.getStatus().setNode("ws-a");
    j.getStatus().setReplicaNodes(List.of("ws-a", "ws-b", "ws-b"));
    LaunchPlan p = LaunchPlan.of(new RunKey("studio", "mesh", "uid-1", 2, 2), j);
    assertThat(p.spec().env())
        .containsEntry("OCTOMY_REPLICA_INDEX", "2")
        .containsEntry("OCTOMY_REPLICA_COUNT", "3")
        .containsEntry("OCTOMY_REPLICA_NODES", "ws-a,ws-b,ws-b")
        .containsEntry("PEERS", "ws-a,ws-b,ws-b");
    assertThat(p.spec().command()).containsExactly("solver", "--rank", "2");
  }

  @Test
  void aJobOfOneReplicaIsToldItIsReplicaZeroOfOneOnItsNode() {
    BatchJob j = job(new ContainerBuilder().withCommand("true"));
    j.setStatus(new BatchJobStatus());
    j.getStatus().setNode("ws-a");
    assertThat(LaunchPlan.of(KEY, j).spec().env())
        .containsEntry("OCTOMY_REPLICA_INDEX", "0")
        .containsEntry("OCTOMY_REPLICA_COUNT", "1")
        .containsEntry("OCTOMY_REPLICA_NODES", "ws-a");
  }

  @Test
  void valueFromIsSkippedWithANote() {
    LaunchPlan p =
        LaunchPlan.of(
            KEY,
            job(
                new ContainerBuilder()
                    .withCommand("env")
                    .addNewEnv()
                    .withName("TOKEN")
                    .withNewValueFrom()
                    .withNewSecretKeyRef("k", "s", false)
                    .endValueFrom()
                    .endEnv()));
    assertThat(p.spec().env()).doesNotContainKey("TOKEN");
    assertThat(p.spec().workingDir()).isNull();
    assertThat(p.notes()).singleElement().asString().contains("TOKEN", "valueFrom");
  }

  @Test
  void containersAfterTheFirstAndInitContainersAreLeftOutWithANote() {
    BatchJob j =
        job(
            new ContainerBuilder().withName("main").withCommand("true"),
            new ContainerBuilder().withName("sidecar").withCommand("sleep", "1"));
    j.getSpec()
        .getTemplate()
        .getSpec()
        .setInitContainers(List.of(new ContainerBuilder().withName("setup").build()));
    LaunchPlan p = LaunchPlan.of(KEY, j);
    assertThat(p.spec().command()).containsExactly("true");
    assertThat(p.notes())
        .containsExactly(
            "only the first container (main) runs on a Process node; 1 more is not run",
            "initContainers are not run on a Process node; put their commands before the first"
                + " container's");
  }

  @Test
  void anImageWithoutCommandCannotRunOnAProcessNode() {
    LaunchPlan p =
        LaunchPlan.of(KEY, job(new ContainerBuilder().withImage("busybox").withArgs("echo", "hi")));
    assertThat(p.runnable()).isFalse();
    assertThat(p.failureReason()).isEqualTo(LaunchPlan.NO_COMMAND);
    assertThat(p.message()).contains("busybox", "set command");
  }

  @Test
  void emptyItemsAndNulCharactersAreRefusedWithTheFieldNotAnException() {
    List<ContainerBuilder> unlaunchable =
        List.of(
            new ContainerBuilder().withCommand("true").withEnv(Arrays.asList((EnvVar) null)),
            new ContainerBuilder().withCommand("true").withArgs(Arrays.asList((String) null)),
            new ContainerBuilder().withCommand(Arrays.asList("echo", null)),
            new ContainerBuilder().withCommand("true").withWorkingDir("/tmp/a\u0000b"),
            new ContainerBuilder()
                .withCommand("true")
                .addNewEnv()
                .withName("A")
                .withValue("x\u0000")
                .endEnv(),
            new ContainerBuilder().withCommand("echo", "a\u0000"));
    for (ContainerBuilder c : unlaunchable) {
      LaunchPlan p = LaunchPlan.of(KEY, job(c));
      assertThat(p.runnable()).as(c.build().toString()).isFalse();
      assertThat(p.failureReason()).isEqualTo(LaunchPlan.INVALID_CONTAINER);
      assertThat(p.message())
          .startsWith("job " + KEY + " cannot be started: spec.template.spec.containers[0].");
    }
  }

  @Test
  void noContainerAtAll() {
    BatchJob j = new BatchJob();
    j.setSpec(new BatchJobSpec());
    assertThat(LaunchPlan.of(KEY, j).failureReason()).isEqualTo(LaunchPlan.NO_COMMAND);
    assertThat(LaunchPlan.of(KEY, job()).failureReason()).isEqualTo(LaunchPlan.NO_COMMAND);
    assertThat(LaunchPlan.of(KEY, job(new ContainerBuilder().withCommand(List.of(" ")))).runnable())
        .isFalse();
  }
}
