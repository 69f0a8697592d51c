package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.CPU;
import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.ArraySpec;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Array jobs ({@code spec.array}) through the admission loop against a fake cluster whose Pods the
 * test moves through their phases: items created paced and at most maxRunning unfinished, the
 * parent's counts and phase, a dependant of the whole array, a failed item, lost creates.
 */
class ArrayLoopTest {

  private final AdmissionLoopTest.Harness h = new AdmissionLoopTest.Harness();

  @AfterEach
  void close() {
    h.loop.close();
  }

  private static BatchJob array(String name, int count, Integer maxRunning) {
    BatchJob job = aJob(name).cpu(100).command("sh", "-c", "echo $(OCTOMY_ARRAY_INDEX)").build();
    job.getSpec().setArray(new ArraySpec(count, maxRunning));
    return job;
  }

  private BatchJobStatus status(String name) {
    return h.cluster.job(name).getStatus();
  }

  private JobPhase phase(String name) {
    BatchJob job = h.cluster.job(name);
    return job == null || job.getStatus() == null ? null : job.getStatus().getPhase();
  }

  /** Items of {@code parent} that exist and have not finished. */
  private long unfinished(String parent, int count) {
    return IntStream.range(0, count)
        .mapToObj(i -> h.cluster.job(parent + "-" + i))
        .filter(j -> j != null)
        .filter(j -> j.getStatus() == null || !j.getStatus().getPhase().isFinished())
        .count();
  }

  @Test
  void fiveItemsRunAtMostTwoAtOnceThenTheArrayAndItsDependantSucceed() {
    h.cluster.add(h.readyNode("n1", 8000, Executor.Pod));
    h.cluster.add(array("sweep", 5, 2));
    h.cluster.add(aJob("report").cpu(100).after("sweep").build());

    h.pass();
    assertThat(h.cluster.jobsCreated()).containsExactlyInAnyOrder("sweep-0", "sweep-1");
    assertThat(status("sweep").getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(status("sweep").getReason()).isEqualTo("ItemsQueued");
    assertThat(status("sweep").getNode()).as("the parent is never placed").isNull();
    assertThat(h.cluster.podNames()).as("the parent runs nothing").doesNotContain("sweep");

    BatchJob item = h.cluster.job("sweep-1");
    OwnerReference owner = item.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getUid()).isEqualTo(h.cluster.job("sweep").getMetadata().getUid());
    assertThat(owner.getController()).isTrue();
    assertThat(owner.getBlockOwnerDeletion()).isTrue();
    assertThat(item.getMetadata().getLabels())
        .containsEntry(Labels.ARRAY, "sweep")
        .containsEntry(Labels.ARRAY_INDEX, "1");
    assertThat(item.getSpec().getArray()).isNull();
    assertThat(item.getSpec().getAfter()).isNull();
    assertThat(item.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
        .containsExactly(new EnvVar("OCTOMY_ARRAY_INDEX", "1", null));

    for (int round = 0; round < 20; round++) {
      h.pass();
      assertThat(unfinished("sweep", 5)).as("round " + round).isLessThanOrEqualTo(2);
      if (phase("sweep") == JobPhase.Succeeded) {
        break;
      }
      assertThat(phase("report"))
          .as("the dependant waits, round " + round)
          .isEqualTo(JobPhase.Queued);
      for (String pod : h.cluster.podNames()) {
        h.cluster.podPhase(pod, "Succeeded");
      }
    }
    // Each item once; the creates of one pass are sent side by side, so they arrive in any order
    // (which indexes a pass creates is ArrayProgressTest's).
    assertThat(h.cluster.jobsCreated())
        .containsExactlyInAnyOrder("sweep-0", "sweep-1", "sweep-2", "sweep-3", "sweep-4");
    BatchJobStatus done = status("sweep");
    assertThat(done.getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(done.getArray().getItems()).isEqualTo("5/5");
    assertThat(done.getArray().getSucceeded()).isEqualTo(5);
    assertThat(done.getFinishedAt()).isNotNull();
    assertThat(phase("report"))
        .as("admitted in the pass that found the whole array succeeded")
        .isEqualTo(JobPhase.Admitted);
  }

  @Test
  void theLastPassCarriesEachArrayWithTheItemItWillCreateForTheForecast() {
    h.cluster.add(h.readyNode("n1", 8000, Executor.Pod));
    h.cluster.add(array("sweep", 5, 2));
    h.loop.activate(); // the last pass is given out only while the loop decides
    h.pass();
    ArrayShape shape = h.loop.lastPass().orElseThrow().snapshot().arrays().get(0);
    assertThat(shape.key()).isEqualTo(new JobKey("default", "sweep"));
    assertThat(shape.count()).isEqualTo(5);
    assertThat(shape.maxRunning()).isEqualTo(2);
    assertThat(shape.createsItems()).isTrue();
    assertThat(shape.item().requests()).containsEntry(CPU, 100L);
    assertThat(shape.createdFrom()).as("its items come at a later pass").isAfter(h.clock.instant());
  }

  @Test
  void theParentCountsItsItemsByPhase() {
    h.cluster.add(h.readyNode("n1", 8000, Executor.Pod));
    h.cluster.add(array("count", 4, 3));
    h.pass(); // creates three
    h.pass(); // admits them
    h.pass(); // creates their Pods
    h.cluster.podPhase("count-0", "Succeeded");
    h.pass(); // count-0 Succeeded
    h.pass(); // count-3 created
    BatchJobStatus s = status("count");
    assertThat(s.getArray().getCreated()).isEqualTo(4);
    assertThat(s.getArray().getQueued()).as("count-3").isEqualTo(1);
    assertThat(s.getArray().getRunning()).isEqualTo(2);
    h.pass(); // count-3 admitted
    h.pass();
    s = status("count");
    assertThat(s.getPhase()).isEqualTo(JobPhase.Running);
    assertThat(s.getReason()).isEqualTo("ItemsRunning");
    assertThat(s.getArray().getSucceeded()).isEqualTo(1);
    assertThat(s.getArray().getRunning()).isEqualTo(3);
    assertThat(s.getArray().getQueued()).isZero();
    assertThat(s.getArray().getItems()).isEqualTo("1/4");
    assertThat(s.getMessage())
        .isEqualTo(
            "1 of 4 items succeeded, 3 running, 0 queued, 0 not created yet; at most 3 unfinished"
                + " at once.");
  }

  @Test
  void anItemFailedPastItsRetriesFailsTheArrayAndNoMoreItemsAreCreated() {
    h.cluster.add(h.readyNode("n1", 8000, Executor.Pod));
    h.cluster.add(array("fragile", 4, 1));
    h.cluster.add(aJob("after-fragile").cpu(100).after("fragile").build());
    h.pass();
    h.pass();
    h.pass();
    assertThat(phase("fragile-0")).isEqualTo(JobPhase.Admitted);
    h.cluster.podPhase("fragile-0", "Failed");
    h.pass();
    assertThat(phase("fragile-0")).isEqualTo(JobPhase.Failed);
    h.pass();
    BatchJobStatus s = status("fragile");
    assertThat(s.getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(s.getMessage())
        .startsWith("item fragile-0 failed")
        .endsWith("no more items are created.");
    h.pass();
    h.pass();
    assertThat(h.cluster.jobsCreated()).containsExactly("fragile-0");
    assertThat(phase("after-fragile")).isEqualTo(JobPhase.Skipped);
    assertThat(status("after-fragile").getMessage()).contains("fragile failed");
  }

  @Test
  void aLargeArrayIsCreatedAHundredItemsAPass() {
    h.cluster.add(h.readyNode("n1", 1, Executor.Pod)); // fits none: only creation is watched
    h.cluster.add(array("big", 250, null));
    h.pass();
    assertThat(h.cluster.jobsCreated()).hasSize(ArrayStep.CREATES_PER_PASS);
    h.pass();
    assertThat(h.cluster.jobsCreated()).hasSize(200);
    h.pass();
    assertThat(h.cluster.jobsCreated()).hasSize(250);
    h.pass();
    assertThat(h.cluster.jobsCreated()).hasSize(250);
    assertThat(status("big").getArray().getCreated()).isEqualTo(250);
    assertThat(status("big").getArray().getQueued()).isEqualTo(250);
  }

  @Test
  void aLostCreateAndADeletedItemAreCreatedAgainWithoutPassingMaxRunning() {
    h.cluster.add(h.readyNode("n1", 1, Executor.Pod)); // fits none: the items stay queued
    h.cluster.fault("create/lossy-1", FakeCluster.Fault.TIMEOUT_LOST);
    h.cluster.add(array("lossy", 3, 2));
    h.pass();
    assertThat(h.cluster.jobsCreated()).containsExactly("lossy-0");
    assertThat(status("lossy").getArray().getQueued()).as("lossy-1 counts").isEqualTo(2);
    h.pass();
    assertThat(h.cluster.jobsCreated())
        .as("sent again, and lossy-2 not in its place")
        .containsExactly("lossy-0", "lossy-1");
    h.cluster.delete("lossy-0");
    h.pass();
    h.pass();
    assertThat(h.cluster.jobsCreated()).containsExactly("lossy-0", "lossy-1", "lossy-0");
    assertThat(unfinished("lossy", 3)).isEqualTo(2);
  }

  @Test
  void anItemWhoseNameIsTakenIsCreatedOnceTheOtherJobIsGone() {
    h.cluster.add(h.readyNode("n1", 1, Executor.Pod)); // fits none: the jobs stay queued
    h.cluster.add(aJob("redo-0").cpu(100).build()); // left over from an earlier array job
    h.cluster.add(array("redo", 1, null));
    h.pass();
    assertThat(h.cluster.jobsCreated()).as("answered as already there").isEmpty();
    h.cluster.delete("redo-0");
    h.pass();
    assertThat(h.cluster.jobsCreated()).as("still waited for").isEmpty();
    h.clock.advance(ArrayStep.CREATE_PATIENCE);
    h.pass();
    assertThat(h.cluster.jobsCreated()).containsExactly("redo-0");
    assertThat(ArrayItems.parentUid(h.cluster.job("redo-0")))
        .isEqualTo(h.cluster.job("redo").getMetadata().getUid());
  }

  @Test
  void anArrayWhoseItemsCannotBeNamedIsRejected() {
    h.cluster.add(h.readyNode("n1", 8000, Executor.Pod));
    h.cluster.add(array("a".repeat(250), 1000, null));
    h.pass();
    BatchJobStatus s = status("a".repeat(250));
    assertThat(s.getPhase()).isEqualTo(JobPhase.Rejected);
    assertThat(s.getReason()).isEqualTo("InvalidSpec");
    assertThat(s.getMessage()).contains("give the array job a shorter name");
    assertThat(h.cluster.jobsCreated()).isEmpty();
  }

  @Test
  void theParentsFinalizerIsLetGoAtOnce() {
    BatchJob parent = array("kept", 2, null);
    parent.getMetadata().setFinalizers(List.of("batch.octomy.io/reservation-in-use"));
    h.cluster.add(parent);
    h.pass();
    h.pass();
    assertThat(h.cluster.job("kept").getMetadata().getFinalizers()).isNullOrEmpty();
  }
}
