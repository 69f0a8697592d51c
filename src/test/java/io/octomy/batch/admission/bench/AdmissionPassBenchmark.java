package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
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
 * One full admission pass over a {@link BenchmarkWorld}: 1,000 queued jobs x 100 nodes and 10,000 x
 * 1,000, 8 resource names, with locks, groups, dependencies, budgets and running jobs. Run with
 * {@code mvn -Pbench test} (see docs/benchmarks.md), through {@link AdmissionPassBenchmarkRun}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class AdmissionPassBenchmark {

  /** queued jobs x nodes. */
  @Param({"1000x100", "10000x1000"})
  public String size;

  private Snapshot snapshot;

  /**
   * {@link #snapshot} one loop turn later (1% of the queue changed, see {@link BenchmarkWorld}).
   */
  private Snapshot changed;

  private boolean atChanged;

  @Setup
  public void setUp() {
    snapshot = world(size);
    changed = changedWorld(snapshot);
    atChanged = false;
  }

  @Benchmark
  public AdmissionResult decide() {
    return AdmissionPass.decide(snapshot);
  }

  /** A full pass over each world in turn: the loop without a memory. */
  @Benchmark
  public AdmissionResult decideInTurn() {
    atChanged = !atChanged;
    return AdmissionPass.decide(atChanged ? changed : snapshot);
  }

  /** The world one loop turn later, with 1% of its jobs changed. */
  static Snapshot changedWorld(Snapshot world) {
    return BenchmarkWorld.changed(world, world.jobs().size() / 100, 7);
  }

  static Snapshot world(String size) {
    String[] parts = size.split("x");
    return BenchmarkWorld.build(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), 42);
  }

  /** Prints what the pass decides in each world, so the figures can be read against it. */
  static void printWorlds() {
    for (String size : new String[] {"1000x100", "10000x1000"}) {
      Snapshot world = world(size);
      AdmissionResult result = AdmissionPass.decide(world);
      System.out.printf(
          "world %s: %d jobs in the snapshot, %d nodes, %d decisions: %s%n",
          size,
          world.jobs().size(),
          world.nodes().size(),
          result.decisions().size(),
          result.countsByReason());
    }
  }
}
