package io.octomy.batch.controller.visibility;

import io.octomy.batch.admission.AdmissionResult;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.ArraySpec;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.api.EndedRun;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.SnapshotBuilder;
import io.octomy.batch.visibility.Explanation;
import io.octomy.batch.visibility.FitAnswer;
import io.octomy.batch.visibility.LearntRunTimes;
import io.octomy.batch.visibility.QueuedJob;
import io.octomy.batch.visibility.Visibility;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The visibility answers over the controller's current state: the last pass's snapshot with its
 * decisions applied (its admissions are held, its skips and rejections final), at the time of the
 * question, with run times learnt from the profiles. Writes nothing.
 */
public final class VisibilityService {

  /**
   * Where a job's output is kept: its node, the run, and the file when it is on this machine (null:
   * read from the node's agent).
   */
  public record JobOutput(String node, AgentOutputs.OutputRun run, Path file) {}

  private final VisibilitySource source;
  private final Clock clock;
  private final JobOutputs outputs;
  private final PassForecasts forecasts;

  public VisibilityService(VisibilitySource source, Clock clock, JobOutputs outputs) {
    this.source = source;
    this.clock = clock;
    this.outputs = outputs;
    this.forecasts = new PassForecasts(this::wholeQueue, VisibilityService::inBackground, clock);
  }

  /**
   * The controller's loop has decided a pass (on its thread: this only hands work on): the forecast
   * is computed ahead of readers after the first pass of a replica that begins to lead, and after
   * each pass while someone read within a minute ({@link PassForecasts#passDecided}).
   */
  public void passDecided(AdmissionLoop.LastPass pass, boolean firstSinceActivated) {
    forecasts.passDecided(pass, firstSinceActivated);
  }

  /** Whether {@code forecast} is of the last pass (else a newer one is being computed). */
  boolean ofLastPass(PassForecasts.KeptForecast forecast) {
    return forecasts.ofLatestPass(forecast);
  }

  public List<QueuedJob> queue(String namespace) {
    return queue(namespace, null);
  }

  /**
   * The queue of one namespace (or null: all) limited to BatchQueue {@code queue} and the queues
   * below it (null: every queue); 404 saying so when no BatchQueue has that name.
   */
  public List<QueuedJob> queue(String namespace, String queue) {
    return PendingJobsRead.of(forecast(false), namespace, queue, null);
  }

  /**
   * The whole queue's forecast of the last pass, computed once per pass and shared by its readers;
   * with {@code recent}, the newest one done at once, however old (the last pass's then computed
   * for the next read).
   */
  PassForecasts.KeptForecast forecast(boolean recent) {
    AdmissionLoop.LastPass last = lastPass();
    return recent ? forecasts.recent(last) : forecasts.ofPass(last);
  }

  /** A forecast given before, while it is kept (for the next page of a list). */
  Optional<PassForecasts.KeptForecast> forecast(long generation) {
    return forecasts.generation(generation);
  }

  /** Why a Queued job waits; 404 (saying what the job is doing) when it is not Queued. */
  public Explanation why(JobKey job) {
    Visibility v = visibility();
    return v.why(job).orElseThrow(() -> VisibilityException.notFound(notQueued(job)));
  }

  /** What the job in the manifest would get if it were created now in {@code namespace}. */
  public FitAnswer fit(String namespace, BatchJob manifest) {
    String name = manifest.getMetadata() == null ? null : manifest.getMetadata().getName();
    if (name == null || name.isBlank()) {
      String generate =
          manifest.getMetadata() == null ? null : manifest.getMetadata().getGenerateName();
      if (generate == null || generate.isBlank()) {
        throw VisibilityException.badRequest(
            "the manifest has neither metadata.name nor metadata.generateName: give it a name.");
      }
      name = generate + "(new)";
    }
    String own = manifest.getMetadata().getNamespace();
    if (own != null && !own.isBlank() && !own.equals(namespace)) {
      throw VisibilityException.badRequest(
          "the manifest is for namespace "
              + own
              + " but was sent to namespace "
              + namespace
              + ": ask in namespace "
              + own
              + " (kubectl octomy fit -n "
              + own
              + ").");
    }
    Instant now = clock.instant();
    Visibility answering = visibility();
    if (answering.exists(new JobKey(namespace, name))) {
      // As sbatch --test-only answers for any script: the manifest is decided as a new submission
      // beside the job that has its name, under a name no object can have.
      name = name + "(new)";
    }
    JobView candidate = SnapshotBuilder.candidate(namespace, name, manifest.getSpec(), now);
    String type = manifest.getSpec() == null ? null : manifest.getSpec().getType();
    ArraySpec array = manifest.getSpec() == null ? null : manifest.getSpec().getArray();
    // A count the schema refuses is answered by the spec's problems, not expanded.
    int count =
        array == null || array.getCount() == null || array.getCount() > ArraySpec.MAX_COUNT
            ? 0
            : Math.max(0, array.getCount());
    int most = array == null || array.getMaxRunning() == null ? count : array.getMaxRunning();
    try {
      // An array job is answered for its first item, with the whole array's expected end.
      Long seconds =
          manifest.getSpec() == null ? null : manifest.getSpec().getActiveDeadlineSeconds();
      Duration deadline = seconds == null || seconds < 1 ? null : Duration.ofSeconds(seconds);
      return answering.fit(candidate, type, deadline, count, Math.max(1, Math.min(most, count)));
    } catch (IllegalArgumentException e) {
      throw new VisibilityException(409, "AlreadyExists", e.getMessage());
    }
  }

  /** Where a job's output is kept. */
  public JobOutput output(JobKey key) {
    return output(key, null, null);
  }

  /**
   * Where the output of a job's run is kept: on this machine, or on the node to ask.
   *
   * @param run the run's number (an earlier run of a retried job is in {@code status.runs}), or
   *     null for the current or last run
   * @param replica a gang's replica (from 0; each runs on its node in {@code status.replicaNodes}),
   *     or null for replica 0
   */
  public JobOutput output(JobKey key, Integer run, Integer replica) {
    BatchJob job = find(key).orElseThrow(() -> VisibilityException.notFound(missing(key)));
    int current = job.getStatus() == null ? 1 : job.getStatus().currentRun();
    int index = replica == null ? 0 : replica;
    int replicas = job.getSpec() == null ? 1 : job.getSpec().replicaCount();
    if (index >= replicas) {
      throw VisibilityException.badRequest(
          "replica: Invalid value: "
              + index
              + ": batchjob "
              + key.name()
              + " has "
              + (replicas == 1 ? "one replica, 0" : replicas + " replicas, 0 to " + (replicas - 1))
              + ".");
    }
    if (run != null && run != current) {
      if (index > 0) {
        throw VisibilityException.notFound(
            "an earlier run keeps the node of its replica 0 only (status.runs); replica "
                + index
                + " of run "
                + run
                + " is in the agent's state directory of the node it ran on.");
      }
      return earlierOutput(job, key, run);
    }
    List<String> nodes = GangReplicas.nodes(job);
    String node = index < nodes.size() ? nodes.get(index) : null;
    JobPhase phase = job.getStatus() == null ? null : job.getStatus().getPhase();
    if (node == null || phase == null || phase == JobPhase.Queued) {
      throw VisibilityException.notFound(
          "batchjob "
              + key.name()
              + " has not started yet, so it has no output: see kubectl octomy why "
              + key.name()
              + ".");
    }
    return located(node, key, job.getMetadata().getUid(), current, index);
  }

  /** The output of an earlier run, from its entry in {@code status.runs}. */
  private JobOutput earlierOutput(BatchJob job, JobKey key, int run) {
    List<EndedRun> runs =
        job.getStatus() == null || job.getStatus().getRuns() == null
            ? List.of()
            : job.getStatus().getRuns();
    EndedRun ended =
        runs.stream().filter(r -> r.getRun() != null && r.getRun() == run).findFirst().orElse(null);
    if (ended == null || ended.getNode() == null) {
      throw VisibilityException.notFound(
          "batchjob "
              + key.name()
              + " has no run "
              + run
              + " on record: its runs are in status.runs (kubectl get bj "
              + key.name()
              + " -o yaml), and its current one is "
              + (job.getStatus() == null ? 1 : job.getStatus().currentRun())
              + ".");
    }
    return located(ended.getNode(), key, job.getMetadata().getUid(), run, 0);
  }

  /** The run's file on this machine, or, without one here, the run to ask its node's agent for. */
  private JobOutput located(String node, JobKey key, String uid, int run, int replica) {
    AgentOutputs.OutputRun which =
        new AgentOutputs.OutputRun(key.namespace(), key.name(), uid, run, replica);
    return new JobOutput(
        node,
        which,
        outputs.file(node, key.namespace(), key.name(), uid, run, replica).orElse(null));
  }

  private Visibility visibility() {
    return visibility(lastPass(), clock.instant());
  }

  private AdmissionLoop.LastPass lastPass() {
    return source
        .lastPass()
        .orElseThrow(
            () ->
                new VisibilityException(
                    503,
                    "ServiceUnavailable",
                    "the controller has not decided yet (starting, or not the active replica):"
                        + " ask again in a few seconds."));
  }

  private Visibility visibility(AdmissionLoop.LastPass last, Instant now) {
    Snapshot world = applied(last.snapshot(), last.result(), now);
    return new Visibility(world, runTimes(now), last.memory());
  }

  private List<QueuedJob> wholeQueue(AdmissionLoop.LastPass pass) {
    return visibility(pass, clock.instant()).queue(null);
  }

  /** Runs one forecast in the background; at most one at a time per service (PassForecasts). */
  private static void inBackground(Runnable forecast) {
    Thread t = new Thread(forecast, "visibility-forecast");
    t.setDaemon(true);
    t.start();
  }

  /** The snapshot with the pass's decisions applied, at {@code now}. */
  static Snapshot applied(Snapshot snapshot, AdmissionResult result, Instant now) {
    List<JobView> jobs = new ArrayList<>(snapshot.jobs().size());
    for (JobView job : snapshot.jobs()) {
      Decision d = result.decisions().get(job.key());
      if (d instanceof Decision.Admit a) {
        jobs.add(job.withNodes(JobPhase.Admitted, a.nodes()));
      } else if (d != null && d.phase() != JobPhase.Queued) {
        jobs.add(job.withPhase(d.phase(), null));
      } else {
        jobs.add(job);
      }
    }
    return snapshot.withJobs(jobs, now);
  }

  private LearntRunTimes runTimes(Instant now) {
    Map<LearntRunTimes.JobType, List<Long>> runs = new HashMap<>();
    for (BatchJobProfile p : source.profiles()) {
      var status = p.getStatus();
      if (status != null
          && status.getRunTime() != null
          && status.getRunTime().getSamples() != null) {
        runs.put(
            new LearntRunTimes.JobType(p.getMetadata().getNamespace(), p.getMetadata().getName()),
            status.getRunTime().getSamples());
      }
    }
    Map<JobKey, LearntRunTimes.JobFacts> facts = new HashMap<>();
    for (BatchJob j : source.jobs()) {
      String type = j.getSpec() == null ? null : j.getSpec().getType();
      Instant started = j.getStatus() == null ? null : Times.parse(j.getStatus().getStartedAt());
      Long deadline = j.getSpec() == null ? null : j.getSpec().getActiveDeadlineSeconds();
      facts.put(
          key(j),
          new LearntRunTimes.JobFacts(
              type,
              started,
              deadline == null || deadline < 1 ? null : Duration.ofSeconds(deadline)));
    }
    return new LearntRunTimes(runs, facts, now);
  }

  private Optional<BatchJob> find(JobKey key) {
    return source.jobs().stream().filter(j -> key(j).equals(key)).findFirst();
  }

  private String notQueued(JobKey key) {
    Optional<BatchJob> job = find(key);
    if (job.isEmpty()) {
      return missing(key);
    }
    var s = job.get().getStatus();
    String phase = s == null || s.getPhase() == null ? "not decided yet" : s.getPhase().name();
    return "batchjob "
        + key.name()
        + " is not waiting: it is "
        + phase
        + (s != null && s.getNode() != null ? " on node " + s.getNode() : "")
        + (s != null && s.getMessage() != null ? " (" + s.getMessage() + ")" : "")
        + "."
        + (job.get().getSpec() != null && job.get().getSpec().arrayJob()
            ? " It is an array job: each item is a job of its own; ask about one, like kubectl"
                + " octomy why "
                + key.name()
                + "-0."
            : "");
  }

  private static String missing(JobKey key) {
    return "batchjob "
        + key.name()
        + " not found in namespace "
        + key.namespace()
        + ": see kubectl get bj -n "
        + key.namespace()
        + ".";
  }

  private static JobKey key(BatchJob j) {
    return new JobKey(j.getMetadata().getNamespace(), j.getMetadata().getName());
  }
}
