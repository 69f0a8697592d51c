package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.Resources;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.NodeMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What people do to jobs and nodes between passes, against the loop and an in-memory server that
 * enforces none of the CRD's rules (so the loop itself must hold the line): edits of admitted jobs,
 * executor changes, broken cycles, fixed ancestors, jobs created within one second.
 */
class UserEditsLoopTest {

  private static final String CPU = ApiFixtures.CPU;

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();

  @AfterEach
  void close() {
    h.loop.close();
  }

  private static String state(BatchJob j) {
    if (j == null) {
      return "absent";
    }
    if (j.getStatus() == null || j.getStatus().getPhase() == null) {
      return "undecided";
    }
    return switch (j.getStatus().getPhase()) {
      case Admitted, Running -> j.getStatus().getPhase() + "@" + j.getStatus().getNode();
      case Queued -> "Queued:" + j.getStatus().getReason();
      default -> j.getStatus().getPhase() + ":" + j.getStatus().getReason();
    };
  }

  private String state(String job) {
    return state(h.cluster.job(job));
  }

  @Test
  void anAdmittedJobHoldsWhatItWasAdmittedWithWhateverItsSpecSaysLater() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(3000).locks("k").group("g").build());
    h.pass();
    assertThat(state("a")).isEqualTo("Admitted@n1");
    assertThat(h.cluster.job("a").getStatus().getAdmission())
        .isEqualTo(
            new AdmissionRecord(
                "n1", NodeMode.Drone, Executor.Process, Map.of(CPU, 3000L), List.of("k"), "g"));

    // Lower the request to 0 and drop the lock and group: the server takes it, the loop does not.
    h.cluster.editSpec(
        "a",
        s -> {
          s.setResources(new Resources(Map.of(CPU, 0L), Map.of(CPU, 0L)));
          s.setLocks(null);
          s.setGroup(null);
        });
    h.cluster.add(aJob("b").cpu(3000).build());
    h.cluster.add(aJob("c").locks("k").build());
    h.cluster.add(aJob("d").group("g").build());
    h.pass();
    assertThat(state("b")).isEqualTo("Queued:WaitingForCapacity");
    assertThat(state("c")).isEqualTo("Queued:WaitingForLock");
    assertThat(state("d")).isEqualTo("Queued:WaitingForGroup");
    assertThat(h.cluster.job("a").getStatus().getAdmission().getRequests())
        .containsEntry(CPU, 3000L);
  }

  @Test
  void oneFieldDecidesWhoRunsAJobEvenWhenTheNodesExecutorChangesLater() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Process));
    h.cluster.add(aJob("a").cpu(1000).build());
    h.pass();
    assertThat(h.cluster.job("a").getStatus().getAdmission().getExecutor())
        .isEqualTo(Executor.Process);
    h.cluster.editNode("n1", s -> s.setExecutor(Executor.Pod));
    h.pass();
    h.pass();
    assertThat(h.cluster.podNames()).as("the agent runs a; no Pod is created for it").isEmpty();
    assertThat(state("a")).isEqualTo("Admitted@n1");
  }

  @Test
  void aCycleIsDecidedAgainOnceAnAfterEntryIsRemoved() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
    h.cluster.add(aJob("a").after("b").build());
    h.cluster.add(aJob("b").after("a").build());
    h.pass();
    assertThat(state("a")).isEqualTo("Rejected:DependencyCycle");
    assertThat(h.cluster.job("a").getStatus().getMessage())
        .endsWith("Remove one of these after entries.");
    h.cluster.editSpec("a", s -> s.setAfter(null));
    h.pass();
    assertThat(state("a")).isEqualTo("Admitted@n1");
    assertThat(state("b")).isEqualTo("Queued:WaitingForDependency");
    assertThat(h.cluster.job("a").getStatus().getFinishedAt()).isNull();
  }

  @Test
  void aDependantSkippedForAnInvalidAncestorRunsOnceTheAncestorIsFixedAndSucceeds() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
    h.cluster.add(aJob("prep").request("cfd-cores", 4).build());
    h.cluster.add(aJob("solve").after("prep").build());
    h.pass();
    assertThat(state("prep")).isEqualTo("Rejected:InvalidSpec");
    assertThat(state("solve")).isEqualTo("Skipped:DependencyFailed");
    String skippedAt = h.cluster.job("solve").getStatus().getFinishedAt();
    h.pass();
    assertThat(h.cluster.job("solve").getStatus().getFinishedAt())
        .as("decided again, the same outcome is not rewritten")
        .isEqualTo(skippedAt);

    h.cluster.editSpec("prep", s -> s.setResources(new Resources(Map.of(CPU, 1000L), null)));
    h.pass();
    assertThat(state("prep")).isEqualTo("Admitted@n1");
    assertThat(state("solve")).isEqualTo("Queued:WaitingForDependency");
    h.pass(); // its Pod
    h.cluster.podPhase("prep", "Succeeded");
    h.pass(); // prep succeeded
    h.pass(); // solve admitted
    assertThat(state("prep")).isEqualTo("Succeeded:Succeeded");
    assertThat(state("solve")).isEqualTo("Admitted@n1");
  }

  @Test
  void jobsCreatedWithinOneSecondKeepTheirCreationOrderNotTheirNames() {
    h.cluster.add(h.readyNode("n1", 4000, Executor.Pod));
    BatchJob first = aJob("zz-first").locks("k").build();
    BatchJob second = aJob("aa-second").locks("k").build();
    first.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    second.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    h.cluster.add(first);
    h.cluster.add(second);
    h.pass();
    assertThat(state("zz-first")).isEqualTo("Admitted@n1");
    assertThat(state("aa-second")).isEqualTo("Queued:WaitingForLock");
    assertThat(h.cluster.job("aa-second").getStatus().getQueuedAt())
        .isEqualTo("2026-01-01T00:00:00.000001Z");
  }
}
