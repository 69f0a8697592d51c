package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.RememberedPass;
import io.octomy.batch.admission.Snapshot;
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

  @Setup
  public void setUp() {
    snapshot = AdmissionPassBenchmark.world(size);
    changed = AdmissionPassBenchmark.changedWorld(snapshot);
    memory = AdmissionPass.decide(snapshot, PassMemory.empty()).memory();
    atChanged = false;
  }

  @Benchmark
  public AdmissionResult decideRemembering() {
    atChanged = !atChanged;
    RememberedPass pass = AdmissionPass.decide(atChanged ? changed : snapshot, memory);
    memory = pass.memory();
    return pass.result();
  }
}
