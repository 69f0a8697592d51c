package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes a finished job (Succeeded, Failed, Skipped or Rejected) its TTL after it ended: {@code
 * spec.ttlSecondsAfterFinished}, else the policy's {@code finishedJobTTL}, counted from {@code
 * status.finishedAt}. The delete names the job's uid as a precondition, so a job re-created under
 * the same name is never deleted by the old one's timer; its Pod goes with it. A Succeeded job is
 * first entered in its namespace's {@link CleanedUpJobs} record, so its dependants still find it
 * succeeded; the run was folded into its drift record when it finished, by uid, and deleting the
 * job takes nothing from it.
 *
 * <p>Timers, not polling: each pass arms one timer per job not yet due, which asks for a pass when
 * the job falls due; the clock and the timers are injected, so tests move time by hand.
 */
final class FinishedJobCleanup {

  private static final Logger LOG = LoggerFactory.getLogger(FinishedJobCleanup.class);

  /** Runs {@code wake} once {@code delay} has passed. */
  interface Timers {
    void after(Duration delay, Runnable wake);
  }

  private final Duration policyTtl;
  private final Timers timers;
  private final Runnable requestPass;

  /** uid to when the job falls due; only the loop's thread uses it. */
  private final Map<String, Due> dues = new HashMap<>();

  /** uid to the time a timer was armed for. */
  private final Map<String, Instant> armed = new HashMap<>();

  /** uids whose clean-up was handed to the writers and has not failed. */
  private final Set<String> sent = ConcurrentHashMap.newKeySet();

  private final CleanedUpJobs records = new CleanedUpJobs();

  /** Namespaces whose record is being read. */
  private final Set<String> reading = ConcurrentHashMap.newKeySet();

  FinishedJobCleanup(Duration policyTtl, Timers timers, Runnable requestPass) {
    this.policyTtl = policyTtl;
    this.timers = timers;
    this.requestPass = requestPass;
  }

  /** The records of jobs deleted after they succeeded, as far as this replica has read them. */
  CleanedUpJobs records() {
    return records;
  }

  /**
   * Reads, on the writers, the record of each namespace not read yet where a job names
   * dependencies; a pass is asked for once a read is answered (one without an answer is tried on a
   * later pass). Until then such a dependant waits as for a job that does not exist.
   */
  CompletableFuture<Void> readRecords(
      Collection<BatchJob> jobs, ClusterWriter writer, Executor writers) {
    Set<String> namespaces = new HashSet<>();
    for (BatchJob job : jobs) {
      BatchJobSpec spec = job.getSpec();
      String namespace = job.getMetadata().getNamespace();
      if (spec != null
          && spec.getAfter() != null
          && !spec.getAfter().isEmpty()
          && !records.isRead(namespace)
          && !reading.contains(namespace)) {
        namespaces.add(namespace);
      }
    }
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    for (String namespace : namespaces) {
      reading.add(namespace);
      reads.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  Map<String, String> data = writer.readCleanedUp(namespace);
                  if (data != null) {
                    records.held(namespace, data);
                  }
                } finally {
                  reading.remove(namespace);
                }
                requestPass.run();
              },
              writers));
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
  }

  /** The TTL of a job: its own, else the policy's; null keeps it. */
  Duration ttlOf(BatchJob job) {
    BatchJobSpec spec = job.getSpec();
    Integer own = spec == null ? null : spec.getTtlSecondsAfterFinished();
    return own != null ? Duration.ofSeconds(own) : policyTtl;
  }

  /** When the job is due for deletion, or null when it is not finished or is kept. */
  Instant dueAt(BatchJob job) {
    BatchJobStatus s = job.getStatus();
    if (s == null || !ends(s.getPhase()) || s.getFinishedAt() == null) {
      return null;
    }
    Duration ttl = ttlOf(job);
    if (ttl == null) {
      return null;
    }
    Due known = dues.get(job.getMetadata().getUid());
    if (known != null && known.finishedAt.equals(s.getFinishedAt()) && known.ttl.equals(ttl)) {
      return known.at; // parsed on an earlier pass: a finished job is looked at on every pass
    }
    try {
      Instant at = Times.parse(s.getFinishedAt()).plus(ttl);
      dues.put(job.getMetadata().getUid(), new Due(s.getFinishedAt(), ttl, at));
      return at;
    } catch (RuntimeException e) {
      return null; // not a time we wrote: never guessed at
    }
  }

  /** When a job falls due, with what it was worked out from. */
  private record Due(String finishedAt, Duration ttl, Instant at) {}

  private static boolean ends(JobPhase phase) {
    return phase == JobPhase.Succeeded
        || phase == JobPhase.Failed
        || phase == JobPhase.Skipped
        || phase == JobPhase.Rejected;
  }

  /**
   * The jobs due now (not yet sent, not being deleted, no write of ours out for them); a timer is
   * armed for each one due later.
   */
  List<BatchJob> due(Collection<BatchJob> jobs, StatusWriteGate gate, Instant now) {
    List<BatchJob> out = new ArrayList<>();
    Set<String> live = new HashSet<>();
    for (BatchJob job : jobs) {
      if (job.getMetadata().getDeletionTimestamp() != null || ArrayItems.parentUid(job) != null) {
        continue; // an array's item goes with its array job, whose TTL it has
      }
      Instant due = dueAt(job);
      if (due == null) {
        continue;
      }
      String uid = job.getMetadata().getUid();
      live.add(uid);
      if (due.isAfter(now)) {
        Instant timer = armed.get(uid);
        if (timer == null || timer.isAfter(due) || !timer.isAfter(now)) {
          armed.put(uid, due);
          timers.after(Duration.between(now, due), requestPass);
        }
      } else if (!sent.contains(uid) && !gate.ourWritePending(job)) {
        out.add(job);
      }
    }
    armed.keySet().retainAll(live);
    dues.keySet().retainAll(live);
    sent.retainAll(live);
    return out;
  }

  /**
   * Record changes for names the records hold while a live job of that name has another uid: the
   * job was re-created, and its own outcome decides from now on.
   */
  Map<String, List<String>> stale(JobsByKey live) {
    Map<String, List<String>> out = new HashMap<>();
    records
        .byNamespace()
        .forEach(
            (namespace, names) ->
                names.forEach(
                    (name, entry) -> {
                      BatchJob j = live.get(new JobKey(namespace, name));
                      if (j != null
                          && !records.uid(namespace, name).equals(j.getMetadata().getUid())) {
                        out.computeIfAbsent(namespace, k -> new ArrayList<>()).add(name);
                      }
                    }));
    return out;
  }

  /**
   * Hands each due job to the writers: a Succeeded one is recorded first (not deleted when the
   * record cannot be written: tried again on a later pass), then the job is deleted on its uid and
   * its Pod after it.
   */
  CompletableFuture<Void> send(
      List<BatchJob> due,
      Map<String, List<String>> stale,
      Collection<Pod> pods,
      ClusterWriter writer,
      Executor writers) {
    if (due.isEmpty() && stale.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    stale.forEach(
        (namespace, names) ->
            sent.add(
                CompletableFuture.runAsync(
                    () -> {
                      Map<String, String> now =
                          writer.writeCleanedUp(
                              namespace,
                              data -> {
                                Map<String, String> out = new HashMap<>(data);
                                names.forEach(out::remove);
                                return out;
                              });
                      if (now != null) {
                        records.held(namespace, now);
                      }
                    },
                    writers)));
    for (BatchJob job : due) {
      String uid = job.getMetadata().getUid();
      this.sent.add(uid);
      List<Pod> owned = new ArrayList<>();
      for (Pod p : pods) {
        Map<String, String> labels = p.getMetadata().getLabels();
        if (labels != null && uid.equals(labels.get(Labels.JOB_UID))) {
          owned.add(p);
        }
      }
      sent.add(CompletableFuture.runAsync(() -> cleanUp(job, owned, writer), writers));
    }
    return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
  }

  private void cleanUp(BatchJob job, List<Pod> pods, ClusterWriter writer) {
    try {
      cleanUpOnce(job, pods, writer);
    } catch (RuntimeException e) {
      // A bug or a client error must not leave the job marked as sent: a later pass tries again.
      LOG.warn(
          "cleaning up job {} failed; tried again on a later pass", job.getMetadata().getName(), e);
      sent.remove(job.getMetadata().getUid());
    }
  }

  private void cleanUpOnce(BatchJob job, List<Pod> pods, ClusterWriter writer) {
    String uid = job.getMetadata().getUid();
    String what = job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
    if (job.getStatus().getPhase() == JobPhase.Succeeded) {
      Map<String, String> now = writer.writeCleanedUp(job.getMetadata().getNamespace(), add(job));
      if (now == null) {
        LOG.warn("job {} is not deleted yet: its succeeded entry could not be recorded", what);
        sent.remove(uid);
        return;
      }
      records.held(job.getMetadata().getNamespace(), now);
    }
    ClusterWriter.Result r = writer.deleteJob(job);
    if (r == ClusterWriter.Result.FAILED) {
      sent.remove(uid);
      return;
    }
    if (r == ClusterWriter.Result.WRITTEN) {
      LOG.info("deleted finished job {} ({} after it ended)", what, ttlOf(job));
      pods.forEach(writer::deletePod);
    }
  }

  private static UnaryOperator<Map<String, String>> add(BatchJob job) {
    return data ->
        CleanedUpJobs.withEntry(
            data,
            job.getMetadata().getName(),
            job.getMetadata().getUid(),
            job.getStatus().getFinishedAt());
  }
}
