package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Following runs, the second job of a pass: for every admitted or running job, the Pod to create
 * (on a {@code Pod} node), and the status its run calls for (started, finished, usage, over limit),
 * read from its Pod or from what its node's agent reported ({@code Process} node).
 */
final class RunFollower {

  /**
   * What following the runs produced.
   *
   * @param podsToCreate Pods of admitted jobs on Pod nodes that have none yet
   * @param podsToDelete Pods of jobs being deleted: the work stops at once
   * @param writes statuses that changed because a run moved
   */
  record Followed(List<Pod> podsToCreate, List<Pod> podsToDelete, List<StatusWrite> writes) {}

  /** The end of a job on a Pod node deleted before its Pod was created: it never ran. */
  private static final RunObservation DELETED_BEFORE_START =
      new RunObservation(
          JobPhase.Failed,
          null,
          "Deleted",
          null,
          null,
          Map.of(),
          "The job was deleted before it started; it was not started.");

  private final SnapshotBuilder snapshots;
  private final StatusWriteGate gate;
  private final Duration heartbeatTimeout;
  private final Policy policy;

  /**
   * Names of BatchNodes that jobs are placed on but the cache does not hold, with when this loop
   * first saw them missing. The moment is also written on each such job (its {@code NodeMissing}
   * condition, see {@link #withNodeMissing}), and the earlier of the two counts, so a restarted
   * controller keeps the deadline instead of waiting the whole timeout again.
   */
  private final Map<String, Instant> nodeMissingSince = new HashMap<>();

  /** uids of jobs whose Pod was created (or is being created) but is not in the cache yet. */
  private final Set<String> podsRequested = ConcurrentHashMap.newKeySet();

  /** The nodes whose job output kubectl octomy logs reaches through this controller. */
  private final Predicate<String> logsServedOn;

  RunFollower(
      SnapshotBuilder snapshots,
      StatusWriteGate gate,
      Policy policy,
      Predicate<String> logsServedOn) {
    this.snapshots = snapshots;
    this.logsServedOn = logsServedOn;
    this.gate = gate;
    this.heartbeatTimeout = policy.nodeHeartbeatTimeout();
    this.policy = policy;
  }

  Followed follow(
      List<BatchJob> jobs, List<BatchNode> nodes, Collection<Pod> jobPods, Instant now) {
    Map<String, BatchNode> nodeByName = new HashMap<>();
    nodes.forEach(n -> nodeByName.put(n.getMetadata().getName(), n));
    Map<String, Pod> podByRun = new HashMap<>();
    for (Pod p : jobPods) {
      String run = runOf(p);
      if (run != null) {
        podByRun.put(run, p);
      }
    }
    List<Pod> podsToCreate = new ArrayList<>();
    List<Pod> podsToDelete = new ArrayList<>();
    List<StatusWrite> writes = new ArrayList<>();
    missing.clear();
    for (BatchJob job : jobs) {
      JobPhase phase = snapshots.effectivePhase(job);
      if (phase.isFinal()) {
        if (StatusComposer.editedSinceItRan(job) && !gate.ourWritePending(job)) {
          BatchJobStatus told = StatusComposer.finishedButEdited(job, now);
          writes.add(new StatusWrite(job, new StatusComposer.Composed(told, List.of()), false));
        }
        continue;
      }
      if (!phase.holdsReservation()
          || job.getStatus() == null
          || job.getStatus().getNode() == null
          || gate.ourWritePending(job)) {
        continue;
      }
      BatchNode node = nodeByName.get(job.getStatus().getNode());
      boolean gang = GangReplicas.isGang(job);
      boolean podNode = !gang && executor(job, node) == Executor.Pod;
      String runId = PodFactory.runId(job.getMetadata().getUid(), PodFactory.run(job));
      Pod pod = podNode ? podByRun.get(runId) : null;
      boolean deleting = job.getMetadata().getDeletionTimestamp() != null;
      List<Pod> pods = pod == null ? List.of() : List.of(pod);
      RunObservation run;
      if (gang) {
        GangFollower.GangSeen g =
            GangFollower.follow(
                job,
                phase,
                deleting,
                nodeByName,
                podByRun,
                podsRequested,
                name -> gangNodeGone(name, now));
        podsToCreate.addAll(g.podsToCreate());
        pods = g.pods();
        run = g.run();
      } else {
        if (podNode
            && pod == null
            && phase == JobPhase.Admitted
            && !deleting
            && podsRequested.add(runId)) {
          podsToCreate.add(PodFactory.podFor(job, job.getStatus().getNode()));
        }
        run =
            deleting
                    && podNode
                    && pod == null
                    && phase == JobPhase.Admitted
                    && !podsRequested.contains(runId)
                ? DELETED_BEFORE_START
                : RunObserver.observe(pod, reported(node, job), podNode, phase);
      }
      if (deleting) {
        // Deleting a job stops its work at once (its owner reference alone would wait for the job
        // object, which a finalizer can keep for as long as it likes).
        pods.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .forEach(podsToDelete::add);
      }
      Instant deadline = deadline(job);
      if (deadline != null
          && !deleting
          && run.phase() == JobPhase.Running
          && !now.isBefore(deadline)) {
        // Past its deadline: the job fails now. Its agent stops a process it still runs (the job
        // ended while it ran: SIGTERM, then SIGKILL after the grace period); a Pod is deleted.
        run = deadlineExceeded(job, run, now);
        pods.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .forEach(podsToDelete::add);
      }
      boolean nodeMissing = node == null && !podNode && !gang;
      Instant missingSince = nodeMissing ? missingSince(job, now) : null;
      if (nodeMissing && Duration.between(missingSince, now).compareTo(heartbeatTimeout) >= 0) {
        run = nodeDeleted(job.getStatus().getNode());
      }
      StatusComposer.Composed c =
          withNodeMissing(
              StatusComposer.running(
                  job, run, now, policy, logsServedOn.test(job.getStatus().getNode())),
              job,
              missingSince,
              now);
      withStopPending(c, job, deleting && !podNode ? node : null, now);
      if (!c.status().equals(job.getStatus())) {
        writes.add(new StatusWrite(job, c, false));
      }
    }
    // A gang's replicas left running when its run ended (one failed, its deadline passed) stop.
    GangFollower.leftRunning(jobs, jobPods).stream()
        .filter(p -> !podsToDelete.contains(p))
        .forEach(podsToDelete::add);
    nodeMissingSince.keySet().retainAll(missing);
    // A Pod asked for is not asked for again until the cache shows it (or its job is gone). Most
    // passes have none out: they gather no uids.
    if (!podsRequested.isEmpty()) {
      podsRequested.retainAll(
          jobs.stream()
              .flatMap(
                  j ->
                      IntStream.range(0, Math.max(1, GangReplicas.nodes(j).size()))
                          .mapToObj(
                              i ->
                                  PodFactory.runId(j.getMetadata().getUid(), PodFactory.run(j), i)))
              .filter(run -> !podByRun.containsKey(run))
              .collect(Collectors.toSet()));
    }
    return new Followed(podsToCreate, podsToDelete, writes);
  }

  /**
   * Who runs the job: the executor recorded when it was admitted (one field decides, so a node
   * whose spec changes later cannot have both a Pod and a process run it); for a job admitted
   * before records were kept, its node's current one.
   */
  static Executor executor(BatchJob job, BatchNode node) {
    AdmissionRecord held = job.getStatus() == null ? null : job.getStatus().getAdmission();
    if (held != null && held.getExecutor() != null) {
      return held.getExecutor();
    }
    return node == null ? null : BatchNodeSpec.executorOf(node.getSpec());
  }

  private final Set<String> missing = new HashSet<>();

  /**
   * The end of a gang's replica on a BatchNode that is missing: lost with its node once missing for
   * the heartbeat timeout (as seen by this loop), else null while it may still come back.
   */
  private RunObservation gangNodeGone(String name, Instant now) {
    missing.add(name);
    Instant seen = nodeMissingSince.computeIfAbsent(name, k -> now);
    return Duration.between(seen, now).compareTo(heartbeatTimeout) >= 0 ? nodeDeleted(name) : null;
  }

  /**
   * Since when the node a job is placed on has been missing: with no BatchNode there is no agent to
   * report the job, so after the heartbeat timeout it ends (it would hold its place forever). The
   * earlier of this loop's own sighting and the one written on the job.
   */
  private Instant missingSince(BatchJob job, Instant now) {
    String name = job.getStatus().getNode();
    missing.add(name);
    Instant seen = nodeMissingSince.computeIfAbsent(name, k -> now);
    Condition written =
        Conditions.find(job.getStatus().getConditions(), ConditionTypes.NODE_MISSING);
    Instant persisted =
        written != null && ConditionTypes.TRUE.equals(written.getStatus())
            ? Times.parse(written.getLastTransitionTime())
            : null;
    return persisted != null && persisted.isBefore(seen) ? persisted : seen;
  }

  /**
   * The composed status with the job's NodeMissing condition: True since {@code since} while its
   * node is missing (and the job not finished), False once the node is back.
   */
  private StatusComposer.Composed withNodeMissing(
      StatusComposer.Composed c, BatchJob job, Instant since, Instant now) {
    BatchJobStatus s = c.status();
    boolean was = Conditions.isTrue(s.getConditions(), ConditionTypes.NODE_MISSING);
    long gen = SnapshotBuilder.generation(job);
    if (since != null && !s.getPhase().isFinished()) {
      s.setConditions(
          Conditions.set(
              s.getConditions(),
              ConditionTypes.NODE_MISSING,
              true,
              "BatchNodeDeleted",
              "its BatchNode "
                  + s.getNode()
                  + " is missing; unless it is re-created, the job ends "
                  + Times.format(since.plus(heartbeatTimeout))
                  + " (nodeHeartbeatTimeout after it was first seen missing).",
              gen,
              since));
    } else if (was) {
      s.setConditions(
          Conditions.set(
              s.getConditions(),
              ConditionTypes.NODE_MISSING,
              false,
              since == null ? "BatchNodeBack" : "Finished",
              since == null ? "its BatchNode is back." : "the job has ended.",
              gen,
              now));
    }
    return c;
  }

  /**
   * Says, while the job is being deleted unfinished on a Process node, that the delete waits for
   * its agent to stop it; and sets its StopPending condition when that agent is not reporting: the
   * agent ends the process and says so, and only then is the place freed, so the delete waits (as a
   * Pod's on an unreachable node does). Without this the job's status kept saying it runs, and
   * nothing said why the delete did not return or how to end it. The words depend only on what the
   * node last reported, so a wait is written once.
   *
   * @param node the job's node when the job is being deleted and runs as a process there; else null
   */
  private void withStopPending(
      StatusComposer.Composed c, BatchJob job, BatchNode node, Instant now) {
    BatchJobStatus s = c.status();
    boolean was = Conditions.isTrue(s.getConditions(), ConditionTypes.STOP_PENDING);
    long gen = SnapshotBuilder.generation(job);
    boolean stopping = node != null && !s.getPhase().isFinished() && ReservationFinalizer.on(job);
    String silence = stopping ? silence(node, now) : null;
    if (stopping && silence == null) {
      // Its agent reports: the process ends within its grace period. Until then the job's words
      // said it runs, as if the delete had not been seen.
      s.setMessage(
          "deleted; waiting for the agent of node "
              + s.getNode()
              + " to stop it and report that it ended; its place is freed then.");
    }
    if (silence != null) {
      String message =
          "deleted; waiting for the agent of node "
              + s.getNode()
              + " to end the process and report it, but the node is not ready ("
              + silence
              + since(node, silence)
              + "). Start that agent; if the machine is gone for good, remove the finalizer ("
              + finalizerRemoval(job)
              + "), which frees the job's place whether or not its process still runs there.";
      s.setMessage(message);
      s.setConditions(
          Conditions.set(
              s.getConditions(), ConditionTypes.STOP_PENDING, true, silence, message, gen, now));
    } else if (was) {
      s.setConditions(
          Conditions.set(
              s.getConditions(),
              ConditionTypes.STOP_PENDING,
              false,
              s.getPhase().isFinished() ? "Finished" : "AgentReporting",
              s.getPhase().isFinished()
                  ? "the job has ended."
                  : "the agent of its node reports again.",
              gen,
              now));
    }
  }

  /**
   * Since when, in words that stay the same while the wait lasts (so it is written once): the last
   * report of a silent agent, or when the node stopped being ready for another reason (an agent
   * that reports but is not ready would otherwise move its heartbeat into the job's words on every
   * report).
   */
  private static String since(BatchNode node, String silence) {
    var status = node.getStatus();
    if (status == null) {
      return "";
    }
    if (silence.equals(NodeLiveness.REASON_NOT_REPORTING)) {
      return status.getHeartbeatTime() == null
          ? ""
          : "; its agent last reported at " + status.getHeartbeatTime();
    }
    Condition ready = Conditions.find(status.getConditions(), ConditionTypes.READY);
    return ready == null || ready.getLastTransitionTime() == null
        ? ""
        : " since " + ready.getLastTransitionTime();
  }

  /**
   * The command that removes the controller's finalizer and no other: a JSON patch that first tests
   * the entry it removes, so it cannot take another finalizer if the list changed meanwhile.
   */
  private static String finalizerRemoval(BatchJob job) {
    int at = job.getMetadata().getFinalizers().indexOf(Finalizers.RESERVATION);
    String path = "/metadata/finalizers/" + at;
    return "kubectl patch batchjob "
        + job.getMetadata().getName()
        + " -n "
        + job.getMetadata().getNamespace()
        + " --type=json -p '[{\"op\":\"test\",\"path\":\""
        + path
        + "\",\"value\":\""
        + Finalizers.RESERVATION
        + "\"},{\"op\":\"remove\",\"path\":\""
        + path
        + "\"}]'";
  }

  /**
   * Why the node's agent cannot be expected to end a process now, as the reason of its Ready
   * condition, or null when it reports. A heartbeat older than the timeout that the controller has
   * not marked yet reads as the mark it will get, so the job's words do not change with the mark.
   */
  private String silence(BatchNode node, Instant now) {
    var status = node.getStatus();
    Condition ready =
        status == null ? null : Conditions.find(status.getConditions(), ConditionTypes.READY);
    if (ready != null && !ConditionTypes.TRUE.equals(ready.getStatus())) {
      return Objects.requireNonNullElse(ready.getReason(), ready.getStatus());
    }
    Instant heartbeat = status == null ? null : Times.parse(status.getHeartbeatTime());
    return ready == null || !NodeView.heartbeatFresh(heartbeat, now, heartbeatTimeout)
        ? NodeLiveness.REASON_NOT_REPORTING
        : null;
  }

  /**
   * When a running job's run must end ({@code spec.activeDeadlineSeconds} after it started), or
   * null when it has no deadline or has not started.
   */
  static Instant deadline(BatchJob job) {
    Long seconds = job.getSpec() == null ? null : job.getSpec().getActiveDeadlineSeconds();
    Instant started = job.getStatus() == null ? null : Times.parse(job.getStatus().getStartedAt());
    return seconds == null || seconds < 1 || started == null ? null : started.plusSeconds(seconds);
  }

  /** The end of a run stopped at its deadline: Failed, reason DeadlineExceeded, never retried. */
  private static RunObservation deadlineExceeded(BatchJob job, RunObservation run, Instant now) {
    return new RunObservation(
        JobPhase.Failed,
        null,
        REASON_DEADLINE_EXCEEDED,
        run.startedAt(),
        now,
        run.peakUsage(),
        "It ran longer than spec.activeDeadlineSeconds ("
            + job.getSpec().getActiveDeadlineSeconds()
            + " s), so it is stopped and not retried.",
        run.output());
  }

  /** The reason of a job stopped at its deadline. */
  static final String REASON_DEADLINE_EXCEEDED = "DeadlineExceeded";

  /** The end of a job whose node's BatchNode was deleted and has not come back. */
  private RunObservation nodeDeleted(String node) {
    return new RunObservation(
        JobPhase.Failed,
        null,
        "NodeDeleted",
        null,
        null,
        Map.of(),
        "Its BatchNode "
            + node
            + " was deleted and no agent re-created it within "
            + heartbeatTimeout.toSeconds()
            + "s, so nothing reports this job any more; its place is released. An agent that"
            + " comes back stops what is left of it.");
  }

  /** The Pod could not be created: ask for it again on the next pass. */
  void podNotCreated(Pod pod) {
    String run = runOf(pod);
    if (run != null) {
      podsRequested.remove(run);
    }
  }

  /**
   * The run a job's Pod is for: its job's uid, run number and replica ({@link PodFactory#runId}).
   */
  private static String runOf(Pod p) {
    Map<String, String> labels = p.getMetadata().getLabels();
    String uid = labels == null ? null : labels.get(Labels.JOB_UID);
    if (uid == null) {
      return null;
    }
    String run = labels.get(Labels.RUN);
    String replica = labels.get(Labels.REPLICA);
    try {
      return PodFactory.runId(
          uid,
          run == null ? 1 : Integer.parseInt(run),
          replica == null ? 0 : Integer.parseInt(replica));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static NodeJob reported(BatchNode node, BatchJob job) {
    if (node == null || node.getStatus() == null || node.getStatus().getJobs() == null) {
      return null;
    }
    String uid = job.getMetadata().getUid();
    int run = PodFactory.run(job);
    for (NodeJob nj : node.getStatus().getJobs()) {
      if (uid != null
          && uid.equals(nj.getUid())
          && nj.currentRun() == run
          && nj.currentReplica() == 0) {
        return nj;
      }
    }
    return null;
  }
}
