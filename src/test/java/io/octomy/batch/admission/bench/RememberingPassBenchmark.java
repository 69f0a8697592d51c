package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.RememberedPass;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.vocabulary.JobPhase;
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
 * The admission pass with the memory of the pass before, over the worlds of {@link
 * AdmissionPassBenchmark} and the same worlds one loop turn later, in turn: every pass follows a
 * change of 1% of the jobs (admissions written back, jobs finished, created, edited and deleted,
 * nodes heartbeating, the clock on), one way and then back. {@link
 * AdmissionPassBenchmark#decideInTurn} is the same sequence without a memory. Kept apart from that
 * class so that it can run against builds from before the memory existed.
 *
 * <p>{@code decideOneNewJob} is the smallest change: the world with one Queued job more (a copy of
 * a queued job's spec under a new name), decided from the memory of a pass over the world without
 * it, the same memory each time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class RememberingPassBenchmark {

  /** queued jobs x nodes. */
  @Param({"1000x100", "10000x1000"})
  public String size;

  private Snapshot snapshot;
  private Snapshot changed;
  private boolean atChanged;
  private PassMemory memory;

  private Snapshot withOneNewJob;
  private PassMemory memoryBeforeIt;

  @Setup
  public void setUp() {
    snapshot = AdmissionPassBenchmark.world(size);
    changed = AdmissionPassBenchmark.changedWorld(snapshot);
    memory = AdmissionPass.decide(snapshot, PassMemory.empty()).memory();
    atChanged = false;
    withOneNewJob = withOneNewJob(snapshot);
    memoryBeforeIt = memory;
  }

  /** The world with one more Queued job: the spec of its first queued job, named anew. */
  static Snapshot withOneNewJob(Snapshot world) {
    JobView like =
        world.jobs().stream().filter(j -> j.phase() == JobPhase.Queued).findFirst().orElseThrow();
    List<JobView> jobs = new ArrayList<>(world.jobs());
    jobs.add(
        new JobView(
            like.namespace(),
            "one-new-job",
            1,
            like.requests(),
            like.limits(),
            List.of(),
            List.of(),
            null,
            null,
            JobPhase.Queued,
            null,
            world.now(),
            List.of()));
    return world.withJobs(jobs, world.now());
  }

  @Benchmark
  public AdmissionResult decideRemembering() {
    atChanged = !atChanged;
    RememberedPass pass = AdmissionPass.decide(atChanged ? changed : snapshot, memory);
    memory = pass.memory();
    return pass.result();
  }

  @Benchmark
  public AdmissionResult decideOneNewJob() {
    return AdmissionPass.decide(withOneNewJob, memoryBeforeIt).result();
  }
}
