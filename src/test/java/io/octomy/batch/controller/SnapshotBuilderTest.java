package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What is final and what is decided again, read off a job's status; which runs are stray; and which
 * views a snapshot hands out again.
 */
class SnapshotBuilderTest {

  static Stream<Arguments> phases() {
    return Stream.of(
        Arguments.of("no status yet", null, null, true, JobPhase.Queued),
        Arguments.of("queued", JobPhase.Queued, "WaitingForCapacity", true, JobPhase.Queued),
        Arguments.of("admitted", JobPhase.Admitted, "Admitted", true, JobPhase.Admitted),
        Arguments.of("running", JobPhase.Running, "Admitted", true, JobPhase.Running),
        Arguments.of(
            "succeeded is final", JobPhase.Succeeded, "Succeeded", true, JobPhase.Succeeded),
        Arguments.of("failed is final", JobPhase.Failed, "Failed", true, JobPhase.Failed),
        Arguments.of(
            "skipped is decided again",
            JobPhase.Skipped,
            "DependencyFailed",
            true,
            JobPhase.Queued),
        Arguments.of(
            "a cycle is decided again",
            JobPhase.Rejected,
            "DependencyCycle",
            true,
            JobPhase.Queued),
        Arguments.of(
            "an invalid spec, now fixed, is decided again",
            JobPhase.Rejected,
            "InvalidSpec",
            true,
            JobPhase.Queued),
        Arguments.of(
            "an invalid spec, still invalid, stays rejected",
            JobPhase.Rejected,
            "InvalidSpec",
            false,
            JobPhase.Rejected));
  }

  /**
   * The node's report names runs by uid: only an unfinished run of a uid not in the cache is stray.
   */
  @Test
  void aNodeIsFullWhileItsAgentReportsAnUnfinishedRunOfAJobTheCacheDoesNotHold() {
    BatchJob kept = aJob("kept").build();
    kept.getMetadata().setUid("uid-kept");
    BatchNode node = aNode("ws-1").capacity(ApiFixtures.CPU, 8000).build();
    node.getStatus()
        .setJobs(
            List.of(
                run("kept", "uid-kept", JobPhase.Running),
                run("forced-out", "uid-gone", JobPhase.Running),
                run("done-and-gone", "uid-done", JobPhase.Succeeded),
                run("recreated", "uid-old", JobPhase.Running)));
    BatchJob recreated = aJob("recreated").build();
    recreated.getMetadata().setUid("uid-new");

    assertThat(SnapshotBuilder.strayRuns(node, Set.of("uid-kept", "uid-new")))
        .containsExactly("default/forced-out", "default/recreated");
    assertThat(
            new SnapshotBuilder()
                .build(
                    List.of(kept, recreated),
                    List.of(node),
                    new AssumedAdmissions(),
                    Policy.defaults(),
                    Instant.now())
                .nodes())
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.strayRuns())
                    .containsExactly("default/forced-out", "default/recreated"));
    node.getStatus().setJobs(List.of(run("kept", "uid-kept", JobPhase.Running)));
    assertThat(SnapshotBuilder.strayRuns(node, Set.of("uid-kept"))).isEmpty();
  }

  /** A job's suspend and nodeSelector, and a node's metadata.labels, reach the pass's views. */
  @Test
  void holdSelectorAndLabelsReachTheViews() {
    BatchJob held = aJob("held").build();
    held.getSpec().setSuspend(true);
    held.getSpec().setNodeSelector(Map.of("disk", "ssd"));
    BatchJob plain = aJob("plain").build();
    BatchNode node = aNode("ws-1").capacity(ApiFixtures.CPU, 8000).build();
    node.getMetadata().setLabels(Map.of("disk", "ssd", "zone", "z1"));
    Snapshot snapshot =
        new SnapshotBuilder()
            .build(
                List.of(held, plain),
                List.of(node),
                new AssumedAdmissions(),
                Policy.defaults(),
                Instant.now());
    assertThat(snapshot.jobs())
        .extracting(JobView::name, JobView::suspend, JobView::nodeSelector)
        .containsExactlyInAnyOrder(
            tuple("held", true, Map.of("disk", "ssd")), tuple("plain", false, Map.of()));
    assertThat(snapshot.nodes())
        .singleElement()
        .satisfies(v -> assertThat(v.labels()).isEqualTo(Map.of("disk", "ssd", "zone", "z1")));
  }

  private static NodeJob run(String name, String uid, JobPhase phase) {
    NodeJob r = new NodeJob();
    r.setNamespace("default");
    r.setName(name);
    r.setUid(uid);
    r.setPhase(phase);
    return r;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("phases")
  void effectivePhase(String name, JobPhase phase, String reason, boolean valid, JobPhase want) {
    BatchJob j = valid ? aJob("j").build() : aJob("j").request("cfd-cores", 4).build();
    j.getMetadata().setUid("uid-j");
    if (phase != null) {
      BatchJobStatus s = new BatchJobStatus();
      s.setPhase(phase);
      s.setReason(reason);
      j.setStatus(s);
    }
    assertThat(new SnapshotBuilder().effectivePhase(j)).isEqualTo(want);
    assertThat(want == phase || phase == null)
        .as("only a final or holding phase stands as it is")
        .isEqualTo(phase == null || !phase.isFinished() || phase.isFinal() || !valid);
  }

  @Test
  void anUnchangedJobKeepsItsViewAndAChangedOneGetsANewOne() {
    SnapshotBuilder builder = new SnapshotBuilder();
    AssumedAdmissions assumed = new AssumedAdmissions();
    Instant now = Instant.parse("2026-03-01T12:00:00Z");
    BatchJob a = withVersion(aJob("a").request("octomy.io/cpu-milli", 100).build(), "uid-a", "1");
    BatchJob b = withVersion(aJob("b").request("octomy.io/cpu-milli", 200).build(), "uid-b", "1");
    BatchJob c = withVersion(aJob("c").request("octomy.io/cpu-milli", 300).build(), "uid-c", "1");
    JobView[] first = views(builder.build(List.of(a, b, c), List.of(), assumed, policy(), now));

    // a as it was; b edited (a new resourceVersion); c assumed admitted by the pass before.
    BatchJob edited =
        withVersion(aJob("b").request("octomy.io/cpu-milli", 250).build(), "uid-b", "2");
    assumed.assume(new JobKey("default", "c"), "n1", "uid-c", new AdmissionRecord());
    JobView[] second =
        views(builder.build(List.of(a, edited, c), List.of(), assumed, policy(), now));

    assertThat(second[0]).isSameAs(first[0]);
    assertThat(second[1]).isNotSameAs(first[1]);
    assertThat(second[1].requests()).containsEntry("octomy.io/cpu-milli", 250L);
    assertThat(second[2]).isNotSameAs(first[2]);
    assertThat(second[2].phase()).isEqualTo(JobPhase.Admitted);

    // A job gone for one snapshot and back with the same version is built again: only the last
    // snapshot's views are kept.
    builder.build(List.of(edited), List.of(), assumed, policy(), now);
    JobView[] fourth = views(builder.build(List.of(a), List.of(), assumed, policy(), now));
    assertThat(fourth[0]).isNotSameAs(first[0]).isEqualTo(first[0]);
  }

  @Test
  void aPassReadsEachViewsJobAndItsWrittenDecisionByIndexKeptWhileTheViewIs() {
    SnapshotBuilder builder = new SnapshotBuilder();
    AssumedAdmissions assumed = new AssumedAdmissions();
    Instant now = Instant.parse("2026-03-01T12:00:00Z");
    BatchJob a = withVersion(aJob("a").build(), "uid-a", "1");
    BatchJob gone = withVersion(aJob("gone").build(), "uid-gone", "1");
    gone.getMetadata().setDeletionTimestamp("2026-03-01T11:59:00Z");
    BatchJob b = withVersion(aJob("b").build(), "uid-b", "1");
    BatchJob unversioned = aJob("u").build();
    SnapshotBuilder.PassViews first =
        builder.buildForPass(List.of(a, gone, b, unversioned), List.of(), assumed, policy(), now);

    assertThat(first.snapshot().jobs()).extracting(JobView::name).containsExactly("a", "b", "u");
    assertThat(first.jobs()).containsExactly(a, b, unversioned);
    assertThat(first.written()).hasSize(3).doesNotContainNull();
    assertThat(first.written().get(2))
        .as("a job without a version is not recognised again")
        .isNotSameAs(
            builder
                .buildForPass(List.of(a, b, unversioned), List.of(), assumed, policy(), now)
                .written()
                .get(2));

    BatchJob edited = withVersion(aJob("b").build(), "uid-b", "2");
    SnapshotBuilder.PassViews second =
        builder.buildForPass(List.of(a, edited), List.of(), assumed, policy(), now);
    assertThat(second.written().get(0)).isSameAs(first.written().get(0));
    assertThat(second.written().get(1)).as("a new view").isNotSameAs(first.written().get(1));
  }

  private static BatchJob withVersion(BatchJob job, String uid, String resourceVersion) {
    job.getMetadata().setUid(uid);
    job.getMetadata().setResourceVersion(resourceVersion);
    return job;
  }

  private static JobView[] views(Snapshot snapshot) {
    return snapshot.jobs().toArray(JobView[]::new);
  }

  private static Policy policy() {
    return Policy.defaults();
  }
}
