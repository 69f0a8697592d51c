package io.octomy.batch.visibility;

import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.RunTimeModel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Expected run times learnt from measured ones: the run times each BatchJobProfile records for its
 * job type in its namespace (whole seconds, the last 100 runs).
 *
 * <ul>
 *   <li><b>Quantile: the median</b> (nearest rank, an observed value). A forecast of when a job
 *       starts is as good as its typical error, and the median run time minimises the typical
 *       absolute error of a prediction; a high quantile would make every start look later than it
 *       is.
 *   <li><b>A running job</b> is expected to end at the median of the recorded runs that lasted
 *       longer than it has run so far (the median remaining life), so a job already past most runs
 *       of its type is not expected to end at once, nor at the type's median.
 *   <li><b>Overdue</b>: a job that has run longer than every recorded run of its type is expected
 *       to end after another tenth of its run so far (at least {@link #OVERDUE_MINIMUM}), and says
 *       so: nothing measured tells how much longer it will take.
 *   <li><b>Never seen</b>: a job type without timed runs (or a job without {@code spec.type}) is
 *       expected to run the median of every timed run in its namespace, and, in a namespace without
 *       any, {@link #DEFAULT_RUN_TIME}; the basis says which.
 * </ul>
 */
public final class LearntRunTimes implements RunTimeModel {

  /** The run time assumed where nothing was measured in the namespace. */
  public static final Duration DEFAULT_RUN_TIME = Duration.ofMinutes(10);

  /** The least extra time given to a job that has run longer than every recorded run. */
  public static final Duration OVERDUE_MINIMUM = Duration.ofSeconds(5);

  /** A job type in a namespace. */
  public record JobType(String namespace, String type) {
    public JobType {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(type, "type");
    }
  }

  /**
   * What the snapshot does not say about a job: its type, when it started running, and its {@code
   * spec.activeDeadlineSeconds} (null when none): a run is stopped then, so no run of it is
   * expected to last longer.
   */
  public record JobFacts(String type, Instant startedAt, Duration deadline) {

    /** A job without a deadline. */
    public JobFacts(String type, Instant startedAt) {
      this(type, startedAt, null);
    }
  }

  /** Where an expected run time or end comes from. */
  public enum Source {
    /** The median of the type's recorded runs (remaining life for a running job). */
    MEASURED,
    /** The job has run longer than every recorded run of its type. */
    OVERDUE,
    /** The type has no timed runs: the median of all timed runs in the namespace. */
    NAMESPACE,
    /** Nothing timed in the namespace (or no type): {@link #DEFAULT_RUN_TIME}. */
    DEFAULT,
    /** Its {@code spec.activeDeadlineSeconds} stops it sooner than any of the above says. */
    DEADLINE
  }

  /**
   * How sure an expectation is: its source, the job type and how many runs it rests on.
   *
   * @param type the job's type, null when it has none
   * @param runs timed runs behind it (of the type, or of the namespace for NAMESPACE)
   * @param assumed the run time assumed for NAMESPACE and DEFAULT, the deadline for DEADLINE
   */
  public record Basis(Source source, String type, int runs, Duration assumed) {}

  private final Map<JobType, long[]> sorted = new HashMap<>();
  private final Map<String, Long> namespaceMedian = new HashMap<>();
  private final Map<String, Integer> namespaceRuns = new HashMap<>();
  private final Map<JobKey, JobFacts> facts;

  /** Array jobs whose items to come take their type ({@link #withItemsOf}). */
  private final Set<JobKey> arrays;

  private final Instant now;

  /**
   * @param runSeconds per job type, the recorded run times in whole seconds
   * @param facts per job, its type and start (jobs missing here have no type and have not started)
   * @param now the time expectations are made at
   */
  public LearntRunTimes(
      Map<JobType, List<Long>> runSeconds, Map<JobKey, JobFacts> facts, Instant now) {
    this.facts = Map.copyOf(facts);
    this.arrays = Set.of();
    this.now = Objects.requireNonNull(now, "now");
    Map<String, List<Long>> all = new HashMap<>();
    runSeconds.forEach(
        (type, samples) -> {
          long[] s = samples.stream().filter(v -> v != null && v >= 0).mapToLong(v -> v).toArray();
          if (s.length > 0) {
            Arrays.sort(s);
            sorted.put(type, s);
            List<Long> pool = all.computeIfAbsent(type.namespace(), k -> new ArrayList<>());
            for (long v : s) {
              pool.add(v);
            }
          }
        });
    all.forEach(
        (namespace, pool) -> {
          long[] s = pool.stream().mapToLong(Long::longValue).sorted().toArray();
          namespaceMedian.put(namespace, median(s, 0));
          namespaceRuns.put(namespace, s.length);
        });
  }

  private LearntRunTimes(LearntRunTimes base, Map<JobKey, JobFacts> facts, Set<JobKey> arrays) {
    this.sorted.putAll(base.sorted);
    this.namespaceMedian.putAll(base.namespaceMedian);
    this.namespaceRuns.putAll(base.namespaceRuns);
    this.facts = Map.copyOf(facts);
    this.arrays = Set.copyOf(arrays);
    this.now = base.now;
  }

  /** The same run times, knowing one more job's facts (a job about to be created). */
  public LearntRunTimes with(JobKey job, JobFacts more) {
    Map<JobKey, JobFacts> all = new HashMap<>(facts);
    all.put(job, more);
    return new LearntRunTimes(this, all, arrays);
  }

  /**
   * The same run times, where an item not known here of one of these array jobs ({@code NAME-I},
   * one the controller has not created yet) has its array job's type and has not started.
   */
  public LearntRunTimes withItemsOf(List<ArrayShape> shapes) {
    if (shapes.isEmpty()) {
      return this;
    }
    Set<JobKey> all = new HashSet<>(arrays);
    shapes.forEach(a -> all.add(a.key()));
    return new LearntRunTimes(this, facts, all);
  }

  public Instant now() {
    return now;
  }

  /** The job's facts; a job not known here has no type and has not started. */
  public JobFacts facts(JobKey job) {
    JobFacts known = facts.get(job);
    if (known != null) {
      return known;
    }
    int dash = job.name().lastIndexOf('-');
    if (!arrays.isEmpty() && dash > 0) {
      JobKey array = new JobKey(job.namespace(), job.name().substring(0, dash));
      JobFacts parent = arrays.contains(array) ? facts.get(array) : null;
      if (parent != null) {
        return new JobFacts(parent.type(), null, parent.deadline());
      }
    }
    return new JobFacts(null, null);
  }

  @Override
  public Duration expectedRunTime(JobView job) {
    JobFacts known = facts(job.key());
    Duration learnt = expectedRunTime(job, runs(job.key(), known));
    return known.deadline() != null && known.deadline().compareTo(learnt) < 0
        ? known.deadline()
        : learnt;
  }

  private Duration expectedRunTime(JobView job, long[] runs) {
    if (runs != null) {
      return Duration.ofSeconds(median(runs, 0));
    }
    Long pooled = namespaceMedian.get(job.namespace());
    return pooled != null ? Duration.ofSeconds(pooled) : DEFAULT_RUN_TIME;
  }

  @Override
  public Instant expectedEnd(JobView job) {
    JobFacts known = facts(job.key());
    Instant learnt = learntEnd(job, known);
    if (known.deadline() == null) {
      return learnt;
    }
    // Stopped at its deadline at the latest; a deadline already passed ends it at the next look.
    Instant stopped = (known.startedAt() == null ? now : known.startedAt()).plus(known.deadline());
    Instant bound = stopped.isBefore(now) ? now : stopped;
    return bound.isBefore(learnt) ? bound : learnt;
  }

  private Instant learntEnd(JobView job, JobFacts known) {
    Instant started = known.startedAt();
    Duration elapsed =
        started == null || started.isAfter(now) ? Duration.ZERO : Duration.between(started, now);
    long[] runs = runs(job.key(), known);
    if (runs != null) {
      int from = firstLonger(runs, elapsed.toSeconds());
      if (from < runs.length) {
        return started == null
            ? now.plusSeconds(median(runs, from))
            : started.plusSeconds(median(runs, from));
      }
      return now.plus(overdue(elapsed));
    }
    Duration assumed = expectedRunTime(job, null);
    return assumed.compareTo(elapsed) > 0
        ? now.plus(assumed.minus(elapsed))
        : now.plus(overdue(elapsed));
  }

  /** How sure the expected run time (queued jobs) or end (running jobs) of a job is. */
  public Basis basis(JobView job) {
    JobFacts known = facts(job.key());
    if (known.deadline() != null) {
      boolean bounded =
          job.phase().holdsReservation()
              ? expectedEnd(job).isBefore(learntEnd(job, known))
              : known.deadline().compareTo(expectedRunTime(job, runs(job.key(), known))) < 0;
      if (bounded) {
        return new Basis(Source.DEADLINE, known.type(), 0, known.deadline());
      }
    }
    String type = known.type();
    long[] runs = runs(job.key(), known);
    Instant started = known.startedAt();
    long elapsed =
        started == null || started.isAfter(now) ? 0 : Duration.between(started, now).toSeconds();
    if (runs != null) {
      boolean overdue = job.phase().holdsReservation() && firstLonger(runs, elapsed) == runs.length;
      return new Basis(overdue ? Source.OVERDUE : Source.MEASURED, type, runs.length, null);
    }
    Integer pooled = namespaceRuns.get(job.namespace());
    return pooled != null
        ? new Basis(Source.NAMESPACE, type, pooled, expectedRunTime(job, null))
        : new Basis(Source.DEFAULT, type, 0, DEFAULT_RUN_TIME);
  }

  /** The recorded runs of the job's type, sorted; null when it has no type or none was recorded. */
  private long[] runs(JobKey job, JobFacts known) {
    String type = known.type();
    return type == null ? null : sorted.get(new JobType(job.namespace(), type));
  }

  private static Duration overdue(Duration elapsed) {
    Duration tenth = elapsed.dividedBy(10);
    return tenth.compareTo(OVERDUE_MINIMUM) > 0 ? tenth : OVERDUE_MINIMUM;
  }

  /** Index of the first recorded run longer than {@code seconds}. */
  private static int firstLonger(long[] runs, long seconds) {
    int lo = 0;
    int hi = runs.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (runs[mid] > seconds) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /** Nearest-rank median of {@code runs[from..]} (sorted). */
  private static long median(long[] runs, int from) {
    int n = runs.length - from;
    return runs[from + (n + 1) / 2 - 1];
  }
}
