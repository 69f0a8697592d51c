package io.octomy.batch.visibility;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.admission.Decision;
import io.octomy.batch.admission.Forecast;
import io.octomy.batch.admission.GateReport;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.PassMemory;
import io.octomy.batch.admission.QueueMembers;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.admission.UncreatedItems;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The answers of the visibility API, from one snapshot and the learnt run times: the queue in the
 * order the next pass takes it, why one job waits, and what a job not yet created would get. Pure:
 * every answer comes from {@link AdmissionPass#forecast} over the snapshot (with the asked-about
 * job added, for "fit"), so it cannot disagree with what the pass decides; nothing is written.
 */
public final class Visibility {

  private final Snapshot snapshot;
  private final LearntRunTimes runTimes;
  private final PassMemory memory;

  public Visibility(Snapshot snapshot, LearntRunTimes runTimes) {
    this(snapshot, runTimes, PassMemory.empty());
  }

  /**
   * Answers whose forecasts take from {@code memory} what the controller's last pass read of the
   * jobs whose views are unchanged (its decisions applied change only the views of the jobs it
   * admitted, skipped or rejected); the answers are the same as without it, and the memory is left
   * as it is.
   */
  public Visibility(Snapshot snapshot, LearntRunTimes runTimes, PassMemory memory) {
    this.snapshot = snapshot;
    this.runTimes = runTimes.withItemsOf(snapshot.arrays());
    this.memory = memory;
  }

  /** The Queued jobs in pass order, of one namespace or (null) of all. */
  public List<QueuedJob> queue(String namespace) {
    return queue(namespace, null).orElseThrow();
  }

  /**
   * The Queued jobs in pass order, of one namespace or (null) of all, and of BatchQueue {@code
   * queue} and the queues below it (null: of every queue); empty when no BatchQueue has that name.
   */
  public Optional<List<QueuedJob>> queue(String namespace, String queue) {
    Set<String> inQueue = null;
    if (queue != null) {
      Optional<Set<String>> under = QueueMembers.namespacesUnder(snapshot.queues(), queue);
      if (under.isEmpty()) {
        return Optional.empty();
      }
      inQueue = under.get();
    }
    Forecast forecast = AdmissionPass.forecast(snapshot, memory, runTimes, Set.of());
    Answers answers = new Answers(snapshot, forecast, runTimes);
    List<QueuedJob> out = new ArrayList<>();
    for (JobKey key : forecast.next().decisions().keySet()) {
      if (forecast.exists(key)
          && (namespace == null || namespace.equals(key.namespace()))
          && (inQueue == null || inQueue.contains(key.namespace()))) {
        out.add(answers.queued(key));
      }
    }
    return Optional.of(out);
  }

  /** Why a Queued job waits (every blocker, with remedies); empty when the job is not Queued. */
  public Optional<Explanation> why(JobKey job) {
    Forecast forecast = AdmissionPass.forecast(snapshot, memory, runTimes, Set.of(job));
    return forecast.report(job).map(r -> new Answers(snapshot, forecast, runTimes).explain(r));
  }

  /** Whether a job of that name is in the world this answers from. */
  public boolean exists(JobKey job) {
    return snapshot.jobs().stream().anyMatch(j -> j.key().equals(job));
  }

  /**
   * What a job would get if it were created now, as {@code candidate} (Queued, queued now) of job
   * type {@code type} (may be null): it is added to the snapshot and decided with the rest.
   *
   * @throws IllegalArgumentException when a job of that name already exists in its namespace
   */
  public FitAnswer fit(JobView candidate, String type) {
    return fit(candidate, type, null, 0, 0);
  }

  /**
   * What a job would get if it were created now, as {@link #fit(JobView, String)}, no run of it
   * expected to outlast {@code deadline} ({@code spec.activeDeadlineSeconds}, or null); with {@code
   * count > 0} it is an array job of that many items, at most {@code maxRunning} unfinished at
   * once, each made from {@code candidate}: the answer is its first item's, with the array's
   * expected end.
   *
   * @throws IllegalArgumentException when a job of that name already exists in its namespace
   */
  public FitAnswer fit(
      JobView candidate, String type, Duration deadline, int count, int maxRunning) {
    if (exists(candidate.key())) {
      throw new IllegalArgumentException(
          "batchjob "
              + candidate.name()
              + " already exists in namespace "
              + candidate.namespace()
              + ": ask why it waits instead, or give the manifest another name.");
    }
    JobView queued = candidate.withPhase(JobPhase.Queued, null);
    List<JobView> jobs = new ArrayList<>(snapshot.jobs());
    Snapshot with;
    JobKey asked;
    if (count > 0) {
      jobs.add(
          ArrayShape.parentView(
              queued.namespace(),
              queued.name(),
              1,
              JobPhase.Queued,
              snapshot.now(),
              queued.specProblems()));
      List<ArrayShape> arrays = new ArrayList<>(snapshot.arrays());
      ArrayShape array =
          new ArrayShape(
              queued.namespace(),
              queued.name(),
              count,
              maxRunning,
              !queued.suspend(),
              queued,
              snapshot.now());
      arrays.add(array);
      with = UncreatedItems.completed(snapshot.withJobs(jobs, snapshot.now()).withArrays(arrays));
      asked = array.itemKey(0);
    } else {
      jobs.add(queued);
      with = snapshot.withJobs(jobs, snapshot.now());
      asked = queued.key();
    }
    LearntRunTimes known =
        runTimes
            .with(queued.key(), new LearntRunTimes.JobFacts(type, null, deadline))
            .withItemsOf(with.arrays());
    Forecast forecast = AdmissionPass.forecast(with, memory, known, Set.of(asked));
    Answers answers = new Answers(with, forecast, known);
    GateReport report = forecast.report(asked).orElseThrow();
    Decision decision = forecast.next().decisions().get(asked);
    return new FitAnswer(
        decision instanceof Decision.Admit,
        decision.phase().name(),
        decision instanceof Decision.Admit a ? a.node() : null,
        answers.explain(report),
        count > 0
            ? new FitAnswer.ArrayEnd(count, maxRunning, forecast.end(queued.key()).orElse(null))
            : null);
  }

  /** The answers over one forecast. */
  private final class Answers {
    private final Snapshot world;
    private final Forecast forecast;
    private final Map<JobKey, JobView> views = new HashMap<>();
    private final Map<JobKey, Integer> positions = new HashMap<>();
    private final Map<JobKey, Integer> namespacePositions = new HashMap<>();
    private final StartBasis basis;

    Answers(Snapshot world, Forecast forecast, LearntRunTimes times) {
      this.world = world;
      this.forecast = forecast;
      this.basis = new StartBasis(times, world.now(), world.policy().priority().starvationAfter());
      world.jobs().forEach(j -> views.put(j.key(), j));
      Map<String, Integer> perNamespace = new HashMap<>();
      int position = 0;
      for (JobKey key : forecast.next().decisions().keySet()) {
        if (!forecast.exists(key)) {
          continue; // an array's item to come: no place in the queue yet
        }
        positions.put(key, ++position);
        namespacePositions.put(key, perNamespace.merge(key.namespace(), 1, Integer::sum));
      }
    }

    QueuedJob queued(JobKey key) {
      Decision d = forecast.next().decisions().get(key);
      JobView view = views.get(key);
      var start = forecast.start(key);
      long priority =
          d instanceof Decision.Admit a
              ? a.effectivePriority()
              : d instanceof Decision.Wait w ? w.effectivePriority() : 0;
      return new QueuedJob(
          key.namespace(),
          key.name(),
          positions.get(key),
          namespacePositions.get(key),
          priority,
          view.serviceClass().name(),
          d.reason().code(),
          d.message(),
          start.map(s -> s.at()).orElse(null),
          start.map(s -> Wording.in(s.at(), world.now())).orElse(null),
          start.map(s -> s.node()).orElse(null),
          start.map(s -> s.at().plus(runTimes.expectedRunTime(view))).orElse(null),
          basis.ofStart(d, start, k -> Optional.ofNullable(views.get(k))));
    }

    Explanation explain(GateReport report) {
      int before = 0;
      for (var a : forecast.next().admissions()) {
        if (positions.get(a.job()) < report.position()) {
          before++;
        }
      }
      Holdings holdings = new Holdings(world, forecast.next(), forecast, before);
      Remedies remedies =
          new Remedies(forecast, holdings, basis, new ModeSuggestions(world), world.now());
      return new Explanation(
          queued(report.job()),
          remedies.blockers(views.get(report.job()), report.failing()),
          report.fairShare());
    }
  }
}
