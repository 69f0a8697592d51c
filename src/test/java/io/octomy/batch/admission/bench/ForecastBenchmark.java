package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Forecast;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.RunTimeModel;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.visibility.LearntRunTimes;
import io.octomy.batch.visibility.QueuedJob;
import io.octomy.batch.visibility.Visibility;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * Expected starts for every Queued job of a {@link BenchmarkWorld}, measured beside the admission
 * pass itself over the same snapshot in the same run: {@code pass} is one {@link
 * AdmissionPass#decide} (the baseline), {@code forecast} is {@link AdmissionPass#forecast} (the
 * next pass plus every later pass simulated until no expected end is left), {@code queue} is the
 * whole answer of the visibility API's queue (run times learnt from the profiles, the forecast, a
 * line with its sentences for every Queued job). Run through {@link ForecastBenchmarkRun}.
 *
 * <p>The visibility API forecasts from the memory of the controller's last pass ({@link
 * AdmissionPass#forecast(Snapshot, PassMemory, RunTimeModel, Set)}): {@code forecastRemembering} is
 * that forecast, with the memory of a pass over the world one loop turn earlier (1% of the jobs
 * changed, as {@link RememberingPassBenchmark} has it), and {@code queue} answers with it too;
 * {@code forecast} is the forecast without a memory (cold).
 *
 * <p>Run times: every job gets one of 12 types by its name; each type has 40 recorded runs spread
 * around a median of 1 to 60 minutes; running and admitted jobs started up to one median ago.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ForecastBenchmark {

  /** queued jobs x nodes. */
  @Param({"1000x100", "10000x1000"})
  public String size;

  private Snapshot snapshot;
  private Map<LearntRunTimes.JobType, List<Long>> runs;
  private Map<JobKey, LearntRunTimes.JobFacts> facts;
  private LearntRunTimes runTimes;

  /** What the controller's pass over the world one loop turn earlier left. */
  private PassMemory lastPassMemory;

  @Setup
  public void setUp() {
    snapshot = AdmissionPassBenchmark.world(size);
    Random random = new Random(7);
    runs = new HashMap<>();
    long[] medians = new long[12];
    for (int t = 0; t < medians.length; t++) {
      medians[t] = 60L * (1 + random.nextInt(60));
    }
    for (JobView j : snapshot.jobs()) {
      for (int t = 0; t < medians.length; t++) {
        runs.computeIfAbsent(
            new LearntRunTimes.JobType(j.namespace(), "type-" + t),
            k -> {
              List<Long> samples = new ArrayList<>();
              long median = medians[Integer.parseInt(k.type().substring(5))];
              for (int i = 0; i < 40; i++) {
                samples.add(median / 2 + (long) (random.nextDouble() * median));
              }
              return samples;
            });
      }
    }
    facts = new HashMap<>();
    for (JobView j : snapshot.jobs()) {
      int t = Math.floorMod(j.name().hashCode(), medians.length);
      facts.put(
          j.key(),
          new LearntRunTimes.JobFacts(
              "type-" + t,
              j.phase().holdsReservation()
                  ? snapshot.now().minusSeconds((long) (random.nextDouble() * medians[t]))
                  : null));
    }
    runTimes = new LearntRunTimes(runs, facts, snapshot.now());
    Snapshot earlier = AdmissionPassBenchmark.changedWorld(snapshot);
    lastPassMemory = AdmissionPass.decide(earlier, PassMemory.empty()).memory();
  }

  @Benchmark
  public AdmissionResult pass() {
    return AdmissionPass.decide(snapshot);
  }

  @Benchmark
  public Forecast forecast() {
    return AdmissionPass.forecast(snapshot, runTimes, Set.of());
  }

  @Benchmark
  public Forecast forecastRemembering() {
    return AdmissionPass.forecast(snapshot, lastPassMemory, runTimes, Set.of());
  }

  @Benchmark
  public List<QueuedJob> queue() {
    return new Visibility(snapshot, new LearntRunTimes(runs, facts, snapshot.now()), lastPassMemory)
        .queue(null);
  }

  /** What the forecast finds in each world, so the figures can be read against it. */
  static void printWorlds() {
    for (String s : new String[] {"1000x100", "10000x1000"}) {
      ForecastBenchmark b = new ForecastBenchmark();
      b.size = s;
      b.setUp();
      Forecast f = b.forecast();
      long later = f.starts().values().stream().filter(x -> x.after() != null).count();
      System.out.printf(
          "world %s: %d queued, %d admitted by the next pass, %d expected to start later"
              + " (%d simulated passes), %d not expected to start%n",
          s,
          f.next().decisions().size(),
          f.next().admissions().size(),
          later,
          f.passes(),
          f.next().decisions().size() - f.starts().size());
      System.out.printf(
          "world %s: the forecast from the last pass's memory is the same: %s%n",
          s, b.forecastRemembering().equals(f));
    }
  }
}
