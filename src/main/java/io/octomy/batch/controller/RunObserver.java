package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.Map;

/**
 * Pure: what is known of an admitted job's run. On a Pod node the Pod's phase decides; on a Process
 * node the agent's report does. Usage always comes from the agent's report.
 */
public final class RunObserver {

  private RunObserver() {}

  /**
   * @param pod the job's Pod, or null (Process node, or not created yet)
   * @param reported the agent's entry for this job (matched by uid), or null
   * @param podNode true when the job's node runs jobs as Pods
   * @param current the job's phase as its status says now
   */
  public static RunObservation observe(
      Pod pod, NodeJob reported, boolean podNode, JobPhase current) {
    Map<String, Long> usage = reported == null ? Map.of() : reported.getUsage();
    if (podNode) {
      if (pod == null && current == JobPhase.Running) {
        // It was seen running, so its Pod was in the cache: now it is gone before finishing.
        return new RunObservation(
            JobPhase.Failed,
            null,
            "PodDeleted",
            null,
            null,
            usage,
            "Its Pod was deleted before it finished.");
      }
      if (pod == null || pod.getStatus() == null || pod.getStatus().getPhase() == null) {
        return new RunObservation(JobPhase.Admitted, null, null, null, null, usage);
      }
      ContainerStateTerminated t = terminated(pod);
      Instant started = Times.parse(pod.getStatus().getStartTime());
      return switch (pod.getStatus().getPhase()) {
        case "Running" -> new RunObservation(JobPhase.Running, null, null, started, null, usage);
        case "Succeeded" ->
            new RunObservation(
                JobPhase.Succeeded,
                t == null ? 0 : t.getExitCode(),
                null,
                started,
                t == null ? null : Times.parse(t.getFinishedAt()),
                usage);
        case "Failed" ->
            new RunObservation(
                JobPhase.Failed,
                t == null ? null : t.getExitCode(),
                t == null ? pod.getStatus().getReason() : t.getReason(),
                started,
                t == null ? null : Times.parse(t.getFinishedAt()),
                usage);
        default -> new RunObservation(JobPhase.Admitted, null, null, null, null, usage);
      };
    }
    if (reported == null || reported.getPhase() == null) {
      return new RunObservation(JobPhase.Admitted, null, null, null, null, usage);
    }
    return new RunObservation(
        reported.getPhase(),
        reported.getExitCode(),
        reported.getReason(),
        Times.parse(reported.getStartedAt()),
        Times.parse(reported.getFinishedAt()),
        usage,
        reported.getMessage(),
        reported.getOutput());
  }

  private static ContainerStateTerminated terminated(Pod pod) {
    if (pod.getStatus().getContainerStatuses() == null) {
      return null;
    }
    for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
      if (cs.getState() != null && cs.getState().getTerminated() != null) {
        return cs.getState().getTerminated();
      }
    }
    return null;
  }
}
