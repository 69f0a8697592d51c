package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The controller's side of one admission pass over jobs whose statuses are already written, as
 * while a burst waits behind a long queue: the snapshot built from the cached BatchJobs, the pass,
 * and each decision's status composed and found to need no write. This is the work every pass
 * repeats for every job beyond the pure pass itself ({@code AdmissionPassBenchmark}); {@link
 * #passOverWaiting} adds the rest of what the loop's pass does per cached job ({@code
 * AdmissionLoop.sendPass}): the jobs by key (looked up only for what is in flight), following the
 * runs of those that hold a place, and which of them let the finalizer go.
 *
 * <p>{@code java -cp target/classes:target/test-classes:$(cat target/cp.txt) org.openjdk.jmh.Main
 * DecisionStepBenchmark}; two builds side by side: {@code InterleavedComparison BASE/classes
 * target/classes io.octomy.batch.controller.DecisionStepBenchmark passOverWaiting 2000 300}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class DecisionStepBenchmark {

  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

  /** Waiting jobs: none fits the one node, so each is decided again, unchanged, every pass. */
  @Param({"2000", "10000"})
  public String size;

  private DecisionStep step;
  private SnapshotBuilder snapshots;
  private AssumedAdmissions assumed;
  private RunFollower runs;
  private StatusWriteGate gate;
  private final ReservationFinalizer finalizer =
      new ReservationFinalizer(FinalizerRelease.AT_FINISH);
  private List<BatchJob> cached;
  private List<BatchNode> nodes;
  private JobsByKey byKey;
  private Instant now;

  @Setup
  public void setUp() {
    int jobs = Integer.parseInt(size);
    nodes =
        List.of(
            aNode("bench-node")
                .capacity(ApiFixtures.CPU, 64_000)
                .capacity(ApiFixtures.MEMORY, 64L << 30)
                .heartbeat(NOW)
                .build());
    cached = new ArrayList<>(jobs);
    for (int i = 0; i < jobs; i++) {
      BatchJob job =
          aJob("wait-" + i)
              .namespace("bench")
              .uid("uid-" + i)
              .request(ApiFixtures.CPU, 128_000)
              .request(ApiFixtures.MEMORY, 1L << 30)
              .build();
      job.getMetadata().setResourceVersion(Integer.toString(i + 1));
      job.getMetadata().setFinalizers(List.of(Finalizers.RESERVATION));
      job.getMetadata().setCreationTimestamp(Times.format(NOW.minusMillis(10L * (jobs - i))));
      cached.add(job);
    }
    byKey = new JobsByKey(cached);
    gate =
        new StatusWriteGate(
            Duration.ofSeconds(30), new ControllerMetrics(new SimpleMeterRegistry()));
    snapshots = new SnapshotBuilder();
    assumed = new AssumedAdmissions();
    step = new DecisionStep(assumed, snapshots, gate, Policy.defaults());
    runs = new RunFollower(snapshots, gate, Policy.defaults(), AdmissionLoop.Settings.NO_NODE);
    // The first pass decides every job; its statuses land as the API server would store them.
    now = NOW.plusSeconds(1);
    DecisionStep.Decided first = step.decide(cached, nodes, byKey, now);
    int version = jobs;
    for (StatusWrite write : first.writes()) {
      BatchJob job = write.job();
      gate.written(job, now); // as the status writer reports it landed, before the cache shows it
      job.setStatus(write.composed().status());
      job.getMetadata().setResourceVersion(Integer.toString(++version));
    }
    if (first.writes().size() != jobs) {
      throw new IllegalStateException("the first pass wrote " + first.writes().size());
    }
    now = now.plusSeconds(1);
    int rewrites = step.decide(cached, nodes, byKey, now).writes().size();
    if (rewrites != 0) {
      throw new IllegalStateException("a pass over written statuses wrote " + rewrites);
    }
  }

  @Benchmark
  public DecisionStep.Decided decideWritten() {
    now = now.plusMillis(1);
    return step.decide(cached, nodes, byKey, now);
  }

  /** The pass as the loop runs it over the cached jobs, less writing. */
  @Benchmark
  public List<BatchJob> passOverWaiting() {
    now = now.plusMillis(1);
    step.decide(cached, nodes, new JobsByKey(cached), now);
    runs.follow(cached, nodes, List.of(), now);
    return finalizer.toRelease(cached, snapshots, assumed, gate);
  }
}
