package io.octomy.batch.controller;

import io.octomy.batch.vocabulary.JobPhase;
import java.time.Instant;
import java.util.Map;

/**
 * What is known of an admitted job's run, from its Pod (Pod nodes) or its node agent's report
 * (Process nodes), merged with the agent's usage measurements.
 *
 * @param phase Admitted (not started yet), Running, Succeeded or Failed
 * @param reason why it failed when the run itself did not say (e.g. AgentLost), or null
 * @param peakUsage measured peaks per resource name; empty when nothing was measured yet
 * @param detail a sentence from the agent saying why, when it refused or lost the job; or null
 * @param output where the job's output is kept on its node (a Process job's file), or null
 */
public record RunObservation(
    JobPhase phase,
    Integer exitCode,
    String reason,
    Instant startedAt,
    Instant finishedAt,
    Map<String, Long> peakUsage,
    String detail,
    String output) {

  public RunObservation {
    peakUsage = peakUsage == null ? Map.of() : Map.copyOf(peakUsage);
  }

  public RunObservation(
      JobPhase phase,
      Integer exitCode,
      String reason,
      Instant startedAt,
      Instant finishedAt,
      Map<String, Long> peakUsage) {
    this(phase, exitCode, reason, startedAt, finishedAt, peakUsage, null, null);
  }

  public RunObservation(
      JobPhase phase,
      Integer exitCode,
      String reason,
      Instant startedAt,
      Instant finishedAt,
      Map<String, Long> peakUsage,
      String detail) {
    this(phase, exitCode, reason, startedAt, finishedAt, peakUsage, detail, null);
  }
}
