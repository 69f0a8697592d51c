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

  @Setup
  public void setUp() {
    snapshot = world(size);
  }

  @Benchmark
  public AdmissionResult decide() {
    return AdmissionPass.decide(snapshot);
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
