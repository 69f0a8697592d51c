package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.controller.drift.DriftRecord;
import io.octomy.batch.controller.drift.FinishedRun;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * An API server and its informer cache in memory, for the admission loop's table tests. Writes are
 * conditional on resourceVersion like the real status subresource (a stale write gets 409, a write
 * to a deleted object 404). The cache shows the server's state as of the last {@link #sync()}; with
 * {@link #autoSync} on (the default) every write is in the cache at once. Faults are queued per
 * object and taken by its next write.
 */
final class FakeCluster implements ClusterView, ClusterWriter {

  private static final String JOB_UID = Labels.JOB_UID;

  /** The finalizer of some other controller, as {@link #deleteBehindFinalizer} puts it. */
  static final String FOREIGN_FINALIZER = "example.com/keep";

  /** A fault the next write of one object meets. */
  enum Fault {
    /** Someone else updated the object just before: the write is refused with 409. */
    CONFLICT,
    /** The object was deleted just before: the write gets 404. */
    GONE,
    /** The write timed out before reaching the server: nothing changed. */
    TIMEOUT_LOST,
    /** The write timed out after the server applied it: changed, but the writer saw a failure. */
    TIMEOUT_LANDED,
    /** The writer may not write it (403): this write and every later one of the object. */
    FORBIDDEN
  }

  private final Map<String, BatchJob> jobs = new TreeMap<>();
  private final Map<String, BatchNode> nodes = new TreeMap<>();
  private final Map<String, Pod> pods = new TreeMap<>();
  private final Map<String, Deque<Fault>> faults = new HashMap<>();
  private final List<String> events = new ArrayList<>();
  private final List<String> eventMessages = new ArrayList<>();
  private final Map<String, DriftRecord> profiles = new TreeMap<>();
  private final List<String> admissionsApplied = new ArrayList<>();
  private final List<String> podsDeleted = new ArrayList<>();
  private final Map<String, Integer> created = new HashMap<>();
  private final Map<String, Integer> podsCreatedByUid = new HashMap<>();
  private BiConsumer<BatchJob, List<BatchJob>> admissionListener = (job, all) -> {};
  private long version = 1;

  private List<BatchJob> cachedJobs = List.of();
  private List<BatchNode> cachedNodes = List.of();
  private List<Pod> cachedPods = List.of();
  private final Map<String, ConfigMap> records = new TreeMap<>();
  private final List<String> reads = new ArrayList<>();
  private final List<String> jobsDeleted = new ArrayList<>();

  /** When true, every change is in the cache at once; when false, only after {@link #sync()}. */
  boolean autoSync = true;

  synchronized void add(BatchJob job) {
    // A job re-created under a name used before gets a new uid, as on a real server.
    int n = created.merge(job.getMetadata().getName(), 1, Integer::sum);
    job.getMetadata().setUid("uid-" + job.getMetadata().getName() + (n == 1 ? "" : "-" + n));
    stamp(job);
    jobs.put(key(job), job);
    changed();
  }

  /** The BatchQueues, by name; their status is written by {@link #writeQueueStatus}. */
  private final Map<String, BatchQueue> queues = new TreeMap<>();

  /** How many queue status writes landed. */
  private int queueWrites;

  synchronized void add(BatchQueue queue) {
    stamp(queue);
    queues.put(queue.getMetadata().getName(), queue);
    changed();
  }

  synchronized BatchQueue queue(String name) {
    return queues.get(name);
  }

  synchronized int queueWrites() {
    return queueWrites;
  }

  @Override
  public synchronized Collection<BatchQueue> queues() {
    return List.copyOf(queues.values());
  }

  @Override
  public synchronized Result writeQueueStatus(BatchQueue queue, BatchQueueStatus status) {
    BatchQueue current = queues.get(queue.getMetadata().getName());
    if (current == null) {
      return Result.GONE;
    }
    if (!current
        .getMetadata()
        .getResourceVersion()
        .equals(queue.getMetadata().getResourceVersion())) {
      return Result.CONFLICT;
    }
    BatchQueue next = Serialization.clone(current);
    next.setStatus(status);
    stamp(next);
    queues.put(next.getMetadata().getName(), next);
    queueWrites++;
    return Result.WRITTEN;
  }

  synchronized void add(BatchNode node) {
    stamp(node);
    nodes.put(node.getMetadata().getName(), node);
    changed();
  }

  /**
   * A person edits the job's spec with a server that enforces none of the CRD's rules (the mock
   * server, an old cluster): the edit lands, and generation goes up.
   */
  synchronized void editSpec(String job, Consumer<BatchJobSpec> edit) {
    BatchJob current = Serialization.clone(jobs.get("default/" + job));
    edit.accept(current.getSpec());
    Long generation = current.getMetadata().getGeneration();
    current.getMetadata().setGeneration(generation == null ? 2 : generation + 1);
    stamp(current);
    jobs.put(key(current), current);
    changed();
  }

  /** A person edits a node's spec. */
  synchronized void editNode(String node, Consumer<BatchNodeSpec> edit) {
    BatchNode current = Serialization.clone(nodes.get(node));
    edit.accept(current.getSpec());
    stamp(current);
    nodes.put(node, current);
    changed();
  }

  /**
   * A person deletes the job: gone at once when it carries no finalizer, otherwise marked with
   * deletionTimestamp and kept until the last finalizer is removed, as on a real server.
   */
  synchronized void delete(String job) {
    BatchJob current = jobs.get("default/" + job);
    if (current != null
        && current.getMetadata().getFinalizers() != null
        && !current.getMetadata().getFinalizers().isEmpty()) {
      if (current.getMetadata().getDeletionTimestamp() == null) {
        BatchJob marked = Serialization.clone(current);
        marked.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
        stamp(marked);
        jobs.put(key(marked), marked);
      }
      changed();
      return;
    }
    remove(job);
  }

  /** The object goes, and the garbage collector deletes the Pods it owns. */
  private void remove(String job) {
    BatchJob gone = jobs.remove("default/" + job);
    if (gone != null) {
      // The garbage collector deletes the Pods it owns.
      pods.values()
          .removeIf(
              p -> gone.getMetadata().getUid().equals(p.getMetadata().getLabels().get(JOB_UID)));
    }
    changed();
  }

  /** Someone deletes a BatchNode. */
  synchronized void deleteNode(String node) {
    nodes.remove(node);
    changed();
  }

  /** The node's agent reports in: heartbeat now, Ready. */
  synchronized void heartbeat(String node, Instant now) {
    BatchNode current = Serialization.clone(nodes.get(node));
    current.getStatus().setHeartbeatTime(Times.format(now));
    current
        .getStatus()
        .setConditions(
            Conditions.set(
                current.getStatus().getConditions(),
                ConditionTypes.READY,
                true,
                "AgentReporting",
                "reporting",
                null,
                now));
    stamp(current);
    nodes.put(node, current);
    changed();
  }

  /** Every job the server holds. */
  synchronized List<BatchJob> serverJobs() {
    return jobs.values().stream().map(Serialization::clone).toList();
  }

  /** Every Pod the server holds. */
  synchronized List<Pod> serverPods() {
    return pods.values().stream().map(Serialization::clone).toList();
  }

  /** How many Pods were created for each job uid (a second one would run the job twice). */
  synchronized Map<String, Integer> podsCreatedByUid() {
    return Map.copyOf(podsCreatedByUid);
  }

  /**
   * Called inside each status write that admits a job, with the admitted job and every job the
   * server then holds, so a test can check what the server held at that moment.
   */
  void onAdmission(BiConsumer<BatchJob, List<BatchJob>> listener) {
    this.admissionListener = listener;
  }

  /**
   * A person deletes a job that carries someone's finalizer: the server sets deletionTimestamp and
   * keeps the object (status writes still land) until every finalizer is gone ({@link
   * #removeForeignFinalizer} stands for the other controller's part).
   */
  synchronized void deleteBehindFinalizer(String job) {
    BatchJob current = Serialization.clone(jobs.get("default/" + job));
    List<String> finalizers = new ArrayList<>();
    if (current.getMetadata().getFinalizers() != null) {
      finalizers.addAll(current.getMetadata().getFinalizers());
    }
    finalizers.add(FOREIGN_FINALIZER);
    current.getMetadata().setFinalizers(finalizers);
    current.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    stamp(current);
    jobs.put(key(current), current);
    changed();
  }

  /** The other controller removes its finalizer; the job goes once no finalizer is left. */
  synchronized void removeForeignFinalizer(String job) {
    BatchJob current = jobs.get("default/" + job);
    if (current == null) {
      return;
    }
    BatchJob next = Serialization.clone(current);
    List<String> kept = new ArrayList<>(next.getMetadata().getFinalizers());
    kept.remove(FOREIGN_FINALIZER);
    next.getMetadata().setFinalizers(kept);
    settleFinalizers(next);
  }

  /** Stores a finalizer change; a job being deleted whose last finalizer went is gone. */
  private void settleFinalizers(BatchJob next) {
    if (next.getMetadata().getDeletionTimestamp() != null
        && next.getMetadata().getFinalizers().isEmpty()) {
      remove(next.getMetadata().getName());
      return;
    }
    stamp(next);
    jobs.put(key(next), next);
    changed();
  }

  /** The node's agent reports these runs in its status. */
  synchronized void report(String node, NodeJob... runs) {
    BatchNode current = Serialization.clone(nodes.get(node));
    current.getStatus().setJobs(List.of(runs));
    stamp(current);
    nodes.put(node, current);
    changed();
  }

  /**
   * How this fake keys a Pod: its job's name, and for a gang's Pod {@code #} and its replica (so
   * {@link #podPhase} and {@link #podsDeleted} name {@code job#1}).
   */
  private static String podKey(Pod pod) {
    Map<String, String> labels = pod.getMetadata().getLabels();
    String replica = labels.get(Labels.REPLICA);
    return labels.get("batch.octomy.io/job") + (replica == null ? "" : "#" + replica);
  }

  /** The kubelet ran the job's Pod's container to its end with {@code exitCode}. */
  synchronized void podExited(String job, int exitCode) {
    Pod pod = pods.get(job);
    pod.setStatus(
        new PodStatusBuilder()
            .withPhase(exitCode == 0 ? "Succeeded" : "Failed")
            .withStartTime("2026-01-01T00:00:00Z")
            .addNewContainerStatus()
            .withName("main")
            .withNewState()
            .withNewTerminated()
            .withExitCode(exitCode)
            .withReason(exitCode == 0 ? "Completed" : "Error")
            .withFinishedAt("2026-01-01T00:00:05Z")
            .endTerminated()
            .endState()
            .endContainerStatus()
            .build());
    stamp(pod);
    changed();
  }

  /** The Pod of {@code key} ({@link #podKey}) as the server holds it, or null. */
  synchronized Pod pod(String key) {
    return pods.get(key);
  }

  /** The kubelet moved the job's Pod to {@code phase}. */
  synchronized void podPhase(String job, String phase) {
    Pod pod = pods.get(job);
    pod.setStatus(
        new PodStatusBuilder().withPhase(phase).withStartTime("2026-01-01T00:00:00Z").build());
    stamp(pod);
    changed();
  }

  /** Someone deleted the job's Pod. */
  synchronized void deletePod(String job) {
    pods.remove(job);
    changed();
  }

  /** The next write of the job (or node) named {@code name} meets {@code fault}. */
  synchronized void fault(String name, Fault fault) {
    faults.computeIfAbsent(name, k -> new ArrayDeque<>()).add(fault);
  }

  /** The cache catches up with the server. */
  synchronized void sync() {
    cachedJobs = jobs.values().stream().map(Serialization::clone).toList();
    cachedNodes = nodes.values().stream().map(Serialization::clone).toList();
    cachedPods = pods.values().stream().map(Serialization::clone).toList();
  }

  /**
   * The cache catches up with the server except for the job named {@code lagging}, whose watch
   * event is still on its way: the cache keeps its older copy of it (or lacks it).
   */
  synchronized void syncAllBut(String lagging) {
    BatchJob old =
        cachedJobs.stream()
            .filter(j -> j.getMetadata().getName().equals(lagging))
            .findFirst()
            .orElse(null);
    sync();
    List<BatchJob> jobsNow = new ArrayList<>();
    for (BatchJob j : cachedJobs) {
      if (!j.getMetadata().getName().equals(lagging)) {
        jobsNow.add(j);
      } else if (old != null) {
        jobsNow.add(old);
      }
    }
    cachedJobs = List.copyOf(jobsNow);
  }

  /** The job as the server holds it, or null. */
  synchronized BatchJob job(String name) {
    return jobs.get("default/" + name);
  }

  /** The job of a namespace as the server holds it, or null. */
  synchronized BatchJob job(String namespace, String name) {
    return jobs.get(namespace + "/" + name);
  }

  synchronized BatchNode node(String name) {
    return nodes.get(name);
  }

  synchronized List<String> podNames() {
    return List.copyOf(pods.keySet());
  }

  /** Every admission the server applied, as {@code job@node}, in order. */
  synchronized List<String> admissionsApplied() {
    return List.copyOf(admissionsApplied);
  }

  synchronized List<String> events() {
    return List.copyOf(events);
  }

  /** The Events as {@code job: Reason: message}, in order. */
  synchronized List<String> eventMessages() {
    return List.copyOf(eventMessages);
  }

  synchronized Map<String, DriftRecord> profiles() {
    return Map.copyOf(profiles);
  }

  @Override
  public synchronized Collection<BatchJob> jobs() {
    return cachedJobs;
  }

  @Override
  public synchronized Collection<BatchNode> nodes() {
    return cachedNodes;
  }

  @Override
  public synchronized Collection<Pod> jobPods() {
    return cachedPods;
  }

  @Override
  public synchronized Result writeStatus(BatchJob job, BatchJobStatus status) {
    String name = job.getMetadata().getName();
    Fault fault = nextFault(name);
    if (fault == Fault.CONFLICT && jobs.containsKey(key(job))) {
      stamp(jobs.get(key(job)));
    } else if (fault == Fault.GONE) {
      jobs.remove(key(job));
    } else if (fault == Fault.TIMEOUT_LOST) {
      return Result.FAILED;
    }
    BatchJob current = jobs.get(key(job));
    if (current == null) {
      changed();
      return Result.GONE;
    }
    if (!current
        .getMetadata()
        .getResourceVersion()
        .equals(job.getMetadata().getResourceVersion())) {
      changed();
      return Result.CONFLICT;
    }
    BatchJob next = Serialization.clone(current);
    next.setStatus(Serialization.clone(status));
    stamp(next);
    jobs.put(key(next), next);
    if (status.getPhase() == JobPhase.Admitted
        && (current.getStatus() == null || current.getStatus().getPhase() != JobPhase.Admitted)) {
      admissionsApplied.add(name + "@" + status.getNode());
      admissionListener.accept(next, List.copyOf(jobs.values()));
    }
    changed();
    return fault == Fault.TIMEOUT_LANDED ? Result.FAILED : Result.WRITTEN;
  }

  /**
   * Conditional on resourceVersion like a merge patch that names it; a finalizer may not be added
   * to a job being deleted (a real server answers 422). Faults are queued under {@code
   * finalizers/NAME}.
   */
  @Override
  public synchronized FinalizersWritten writeFinalizers(BatchJob job, List<String> finalizers) {
    String name = job.getMetadata().getName();
    Fault fault = nextFault("finalizers/" + name);
    if (fault == Fault.CONFLICT && jobs.containsKey(key(job))) {
      stamp(jobs.get(key(job)));
    } else if (fault == Fault.GONE) {
      remove(name);
    } else if (fault == Fault.TIMEOUT_LOST) {
      return new FinalizersWritten(Result.FAILED, null);
    }
    BatchJob current = jobs.get(key(job));
    if (current == null) {
      return new FinalizersWritten(Result.GONE, null);
    }
    List<String> before =
        current.getMetadata().getFinalizers() == null
            ? List.of()
            : current.getMetadata().getFinalizers();
    boolean adds = !before.containsAll(finalizers);
    if (!current.getMetadata().getResourceVersion().equals(job.getMetadata().getResourceVersion())
        || (adds && current.getMetadata().getDeletionTimestamp() != null)) {
      changed();
      return new FinalizersWritten(Result.CONFLICT, null);
    }
    BatchJob next = Serialization.clone(current);
    next.getMetadata().setFinalizers(new ArrayList<>(finalizers));
    settleFinalizers(next);
    if (fault == Fault.TIMEOUT_LANDED) {
      return new FinalizersWritten(Result.FAILED, null);
    }
    BatchJob stored = jobs.get(key(job));
    return new FinalizersWritten(
        Result.WRITTEN, stored == null ? null : stored.getMetadata().getResourceVersion());
  }

  @Override
  public synchronized Result writeNodeConditions(BatchNode node, List<Condition> conditions) {
    String name = node.getMetadata().getName();
    Fault fault = nextFault(name);
    BatchNode current = nodes.get(name);
    if (fault == Fault.CONFLICT && current != null) {
      stamp(current);
    }
    if (fault == Fault.TIMEOUT_LOST) {
      return Result.FAILED;
    }
    if (current == null) {
      return Result.GONE;
    }
    if (!current
        .getMetadata()
        .getResourceVersion()
        .equals(node.getMetadata().getResourceVersion())) {
      changed();
      return Result.CONFLICT;
    }
    BatchNode next = Serialization.clone(current);
    next.getStatus().setConditions(conditions);
    stamp(next);
    nodes.put(name, next);
    changed();
    return Result.WRITTEN;
  }

  /** Reads past the cache; a fault queued under {@code read/NAME} makes one read go unanswered. */
  @Override
  public synchronized ReadBack readJob(String namespace, String name) {
    if (nextFault("read/" + name) != null) {
      return new ReadBack.NoAnswer("timed out");
    }
    BatchJob j = jobs.get(namespace + "/" + name);
    return j == null ? new ReadBack.Gone() : new ReadBack.Found(Serialization.clone(j));
  }

  @Override
  public synchronized boolean createPod(Pod pod) {
    String job = podKey(pod);
    Fault fault = nextFault("pod/" + job);
    if (fault == Fault.TIMEOUT_LOST) {
      return false;
    }
    stamp(pod);
    if (pods.putIfAbsent(job, Serialization.clone(pod)) == null) {
      podsCreatedByUid.merge(pod.getMetadata().getLabels().get(JOB_UID), 1, Integer::sum);
    }
    changed();
    return fault != Fault.TIMEOUT_LANDED;
  }

  @Override
  public synchronized boolean deletePod(Pod pod) {
    String job = podKey(pod);
    podsDeleted.add(job);
    pods.remove(job);
    changed();
    return true;
  }

  /** Array items the loop created, by name, in order. */
  private final List<String> jobsCreated = new ArrayList<>();

  /**
   * Creates an array's item as the server would (uid, version, creation time); one of that name
   * already there counts as created, as a 409 does. A fault queued under {@code create/NAME} makes
   * one create go unanswered.
   */
  @Override
  public synchronized boolean createJob(BatchJob item) {
    String name = item.getMetadata().getName();
    if (nextFault("create/" + name) != null) {
      return false;
    }
    if (jobs.containsKey(key(item))) {
      return true;
    }
    BatchJob copy = Serialization.clone(item);
    if (copy.getMetadata().getCreationTimestamp() == null) {
      copy.getMetadata().setCreationTimestamp(creationTime);
    }
    jobsCreated.add(name);
    add(copy);
    return true;
  }

  /** The creation time stamped on items the loop creates; tests move it with their clock. */
  String creationTime = "2026-01-01T00:00:00Z";

  /** Array items the loop created, by name, in order. */
  synchronized List<String> jobsCreated() {
    return List.copyOf(jobsCreated);
  }

  /** Jobs whose Pod the loop deleted, in order. */
  synchronized List<String> podsDeleted() {
    return List.copyOf(podsDeleted);
  }

  /**
   * Deletes the job on its uid, as a DeleteOptions precondition does: 409 when the object of that
   * name has another uid, 404 when none. A fault queued under {@code delete/NAME} makes one delete
   * go unanswered.
   */
  @Override
  public synchronized Result deleteJob(BatchJob job) {
    if (nextFault("delete/" + job.getMetadata().getName()) != null) {
      return Result.FAILED;
    }
    BatchJob current = jobs.get(key(job));
    if (current == null) {
      return Result.GONE;
    }
    if (!current.getMetadata().getUid().equals(job.getMetadata().getUid())) {
      return Result.CONFLICT;
    }
    jobsDeleted.add(job.getMetadata().getName() + "@" + job.getMetadata().getUid());
    delete(job.getMetadata().getName());
    return Result.WRITTEN;
  }

  /** The deletes of jobs that landed, as {@code name@uid}, in order. */
  synchronized List<String> jobsDeleted() {
    return List.copyOf(jobsDeleted);
  }

  /** Reads past the cache; a fault queued under {@code record/NAMESPACE} goes unanswered. */
  @Override
  public synchronized Map<String, String> readCleanedUp(String namespace) {
    if (nextFault("record/" + namespace) != null) {
      return null;
    }
    ConfigMap cm = records.get(namespace);
    reads.add(namespace);
    return cm == null ? Map.of() : Map.copyOf(cm.getData());
  }

  /** The namespaces whose record was read, in order. */
  synchronized List<String> recordReads() {
    return List.copyOf(reads);
  }

  @Override
  public synchronized Map<String, String> writeCleanedUp(
      String namespace, UnaryOperator<Map<String, String>> change) {
    if (nextFault("record/" + namespace) != null) {
      return null;
    }
    ConfigMap cm =
        records.computeIfAbsent(
            namespace,
            ns ->
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(CleanedUpJobs.NAME)
                    .withNamespace(ns)
                    .endMetadata()
                    .withData(new HashMap<>())
                    .build());
    cm.setData(new HashMap<>(change.apply(new HashMap<>(cm.getData()))));
    stamp(cm);
    return Map.copyOf(cm.getData());
  }

  /** The record of cleaned-up jobs of the namespace, as the server holds it (name to entry). */
  synchronized Map<String, String> cleanedUp(String namespace) {
    ConfigMap cm = records.get(namespace);
    return cm == null ? Map.of() : Map.copyOf(cm.getData());
  }

  @Override
  public synchronized void recordEvent(BatchJob job, JobEvent event, int count) {
    events.add(job.getMetadata().getName() + ": " + event.reason());
    eventMessages.add(job.getMetadata().getName() + ": " + event.reason() + ": " + event.message());
  }

  @Override
  public synchronized DriftFold foldDrift(
      String namespace, FinishedRun run, UnaryOperator<DriftRecord> fold) {
    Fault fault = nextFault("profile/" + run.type());
    if (fault == Fault.FORBIDDEN) {
      faults.computeIfAbsent("profile/" + run.type(), k -> new ArrayDeque<>()).push(fault);
      return new DriftFold(FoldOutcome.REFUSED, "403 (forbidden)");
    }
    if (fault != null) {
      return new DriftFold(FoldOutcome.UNANSWERED, "nothing (timed out)");
    }
    profiles.compute(
        namespace + "/" + run.type(),
        (k, old) -> fold.apply(old == null ? DriftRecord.empty() : old));
    return DriftFold.DONE;
  }

  private Fault nextFault(String name) {
    Deque<Fault> q = faults.get(name);
    return q == null ? null : q.poll();
  }

  private void stamp(HasMetadata o) {
    o.getMetadata().setResourceVersion(Long.toString(++version));
  }

  private void changed() {
    if (autoSync) {
      sync();
    }
  }

  private static String key(BatchJob j) {
    return j.getMetadata().getNamespace() + "/" + j.getMetadata().getName();
  }
}
