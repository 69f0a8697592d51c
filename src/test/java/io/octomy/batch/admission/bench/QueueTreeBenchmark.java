package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.admission.RememberedPass;
import io.octomy.batch.admission.Snapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 * The admission pass over the 10,000 x 1,000 {@link BenchmarkWorld}, without BatchQueues and with
 * 100 of them in a three-level tree (4 cohorts, 16 below them, 80 teams; the 30 namespaces on the
 * first 30 teams; weights 1 to 3, a max on every fifth team, a min on every tenth, past usage on
 * every other), side by side in one run: what queues cost a pass. {@link #decide} is a full pass,
 * {@link #decideRemembering} the pass as the loop runs it (as {@link RememberingPassBenchmark}: the
 * world and the world one loop turn later in turn, each pass given the last one's memory).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class QueueTreeBenchmark {

  /** BatchQueues in the snapshot: none, or the tree of 100. */
  @Param({"0", "100"})
  public int queues;

  private Snapshot snapshot;
  private Snapshot changed;
  private boolean atChanged;
  private PassMemory memory;

  @Setup
  public void setUp() {
    Snapshot world = BenchmarkWorld.build(10000, 1000, 42);
    snapshot = withQueues(world, queues);
    changed = withQueues(AdmissionPassBenchmark.changedWorld(world), queues);
    memory = AdmissionPass.decide(snapshot, PassMemory.empty()).memory();
    atChanged = false;
  }

  @Benchmark
  public AdmissionResult decide() {
    return AdmissionPass.decide(snapshot);
  }

  @Benchmark
  public AdmissionResult decideRemembering() {
    atChanged = !atChanged;
    RememberedPass pass = AdmissionPass.decide(atChanged ? changed : snapshot, memory);
    memory = pass.memory();
    return pass.result();
  }

  /** The world with the tree of 100 queues, or as it is for none. */
  static Snapshot withQueues(Snapshot world, int queues) {
    return queues == 0
        ? world
        : new Snapshot(world.jobs(), world.nodes(), world.policy(), world.now(), tree());
  }

  /** The 100 queues of the tree. */
  static List<QueueView> tree() {
    String cpu = BenchmarkWorld.CPU;
    List<QueueView> tree = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      tree.add(new QueueView("org-" + i, null, 1 + i % 2, Map.of(), Map.of(), List.of()));
    }
    for (int i = 0; i < 16; i++) {
      tree.add(new QueueView("dept-" + i, "org-" + i % 4, 1, Map.of(), Map.of(), List.of()));
    }
    for (int j = 0; j < 80; j++) {
      tree.add(
          new QueueView(
              "team-" + j,
              "dept-" + j % 16,
              1 + j % 3,
              j % 10 == 0 ? Map.of(cpu, 490_000L) : Map.of(),
              j % 5 == 0 ? Map.of(cpu, 500_000L) : Map.of(),
              j < 30 ? List.of("ns-" + j) : List.of(),
              j % 2 == 0 ? Map.of(cpu, 1_000_000L * 3600 * (1 + j % 7)) : Map.of()));
    }
    return tree;
  }

  /**
   * Prints what the pass decides with the tree, beside the world without it, then times the two
   * benchmarks in turn (one without queues, one with, {@code args[0]} pairs, 40 by default, after
   * 10 pairs of warm-up), the full pass and the remembering one, and prints each median and the
   * median of the pairs' ratios: on a shared host the load moves both alike, where two JMH runs one
   * after the other are minutes apart.
   */
  public static void main(String[] args) {
    QueueTreeBenchmark without = new QueueTreeBenchmark();
    without.queues = 0;
    without.setUp();
    QueueTreeBenchmark with = new QueueTreeBenchmark();
    with.queues = 100;
    with.setUp();
    System.out.println("no queues: " + without.decide().countsByReason());
    System.out.println("100 queues: " + with.decide().countsByReason());
    int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    double[][] full = new double[3][pairs];
    double[][] remembering = new double[3][pairs];
    for (int i = -10; i < pairs; i++) {
      time(without::decide, with::decide, full, i);
      time(without::decideRemembering, with::decideRemembering, remembering, i);
    }
    print("full pass", full);
    print("remembering pass", remembering);
  }

  /** Times one pass of each and, past the warm-up ({@code i < 0}), keeps both and their ratio. */
  private static void time(Runnable without, Runnable with, double[][] into, int i) {
    long t0 = System.nanoTime();
    without.run();
    long t1 = System.nanoTime();
    with.run();
    long t2 = System.nanoTime();
    if (i >= 0) {
      into[0][i] = (t1 - t0) / 1e6;
      into[1][i] = (t2 - t1) / 1e6;
      into[2][i] = into[1][i] / into[0][i];
    }
  }

  private static void print(String what, double[][] times) {
    System.out.printf(
        "%s at 10000x1000, %d pairs: median %.1f ms without queues, %.1f ms with 100;"
            + " median ratio %.3f%n",
        what, times[0].length, median(times[0]), median(times[1]), median(times[2]));
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
