package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.Forecast;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.RunTimeModel;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * The forecast where every running job ends at the same moment: identical nodes, each full with two
 * running jobs started together, and a queue of jobs that each fit any node, so one simulated pass
 * frees every node and the first waiting job heads all of them (as a page's world of jobs started
 * by one script has it). What it costs to forget a job taken from the nodes it heads shows here,
 * where {@link ForecastBenchmark}'s spread ends free one node at a time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SimultaneousEndsForecastBenchmark {

  private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  private static final String CPU = "octomy.io/cpu-milli";

  /** Every job runs ten minutes; the running ones all end ten minutes from now. */
  private static final RunTimeModel TEN_MINUTES =
      new RunTimeModel() {
        @Override
        public Instant expectedEnd(JobView job) {
          return NOW.plus(Duration.ofMinutes(10));
        }

        @Override
        public Duration expectedRunTime(JobView job) {
          return Duration.ofMinutes(10);
        }
      };

  /** queued jobs x nodes. */
  @Param({"10000x1000"})
  public String size;

  private Snapshot snapshot;

  @Setup
  public void setUp() {
    String[] parts = size.split("x");
    int queued = Integer.parseInt(parts[0]);
    int nodeCount = Integer.parseInt(parts[1]);
    List<NodeView> nodes = new ArrayList<>();
    List<JobView> jobs = new ArrayList<>();
    for (int n = 0; n < nodeCount; n++) {
      nodes.add(
          new NodeView("n" + n, NodeMode.Drone, null, Map.of(CPU, 4000L), NOW, true, Map.of()));
      for (int r = 0; r < 2; r++) {
        jobs.add(job("r" + n + "-" + r, JobPhase.Running, "n" + n, NOW.minusSeconds(60)));
      }
    }
    for (int q = 0; q < queued; q++) {
      jobs.add(job("q" + q, JobPhase.Queued, null, NOW.minusSeconds(q % 600)));
    }
    snapshot = new Snapshot(jobs, nodes, Policy.defaults(), NOW);
  }

  private static JobView job(String name, JobPhase phase, String node, Instant queuedAt) {
    return new JobView(
        "ns",
        name,
        1,
        Map.of(CPU, 2000L),
        null,
        null,
        null,
        null,
        null,
        phase,
        node,
        queuedAt,
        List.of());
  }

  @Benchmark
  public Forecast forecast() {
    return AdmissionPass.forecast(snapshot, TEN_MINUTES, Set.of());
  }
}
