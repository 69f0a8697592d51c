package io.octomy.batch.agent;

import io.octomy.batch.api.NodeJob;
import io.octomy.batch.api.StatusFields;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds and merges the entries of {@code BatchNode.status.jobs}. */
public final class NodeJobs {

  /** Orders entries the way {@link ProcessExecutor#records()} does, so reports are stable. */
  public static final Comparator<NodeJob> ORDER =
      Comparator.comparing(NodeJob::getNamespace, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(NodeJob::getName, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(NodeJob::getUid, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparingInt(NodeJob::currentRun)
          .thenComparingInt(NodeJob::currentReplica);

  private NodeJobs() {}

  /**
   * The entry of a job run by the Process executor.
   *
   * @param usage what the meter saw; null or without samples leaves usage out
   */
  public static NodeJob of(JobRecord record, UsageSummary usage) {
    NodeJob j = base(record.key());
    j.setPhase(phase(record.phase()));
    j.setReason(record.reason());
    j.setExitCode(record.exitCode());
    j.setStartedAt(Times.format(record.startedAt()));
    j.setFinishedAt(Times.format(record.finishedAt()));
    setUsage(j, usage);
    return j;
  }

  /**
   * The entry of a job the agent refused to run, e.g. reason NoCommand, with the sentence saying
   * why.
   */
  public static NodeJob failed(RunKey key, String reason, String message) {
    NodeJob j = base(key);
    j.setPhase(JobPhase.Failed);
    j.setReason(reason);
    j.setMessage(message);
    return j;
  }

  /** Sets peak and mean usage when the meter took at least one reading. */
  public static void setUsage(NodeJob j, UsageSummary usage) {
    if (usage != null && usage.samples() > 0) {
      j.setUsage(usage.peak());
      j.setMeanUsage(usage.mean());
    }
  }

  /**
   * Keeps measurements across agent restarts, using the API server as the memory: an entry without
   * usage (a job that finished while no agent ran, or a finished job whose meter died with the
   * previous agent) takes the usage last reported for the same uid, and a re-adopted job's peak
   * never drops below the peak reported before the restart. Means are not merged: the new meter's
   * mean covers only the time since adoption, the old one is kept only when there is no new one.
   *
   * @param previous {@code status.jobs} as last written, may be null
   * @param current fresh entries; not modified
   * @return copies of {@code current} with usage carried over
   */
  public static List<NodeJob> carryOver(List<NodeJob> previous, List<NodeJob> current) {
    Map<String, NodeJob> before = new HashMap<>();
    if (previous != null) {
      previous.stream().filter(p -> p.getUid() != null).forEach(p -> before.put(p.runId(), p));
    }
    List<NodeJob> out = new ArrayList<>();
    for (NodeJob c : current) {
      NodeJob p = before.get(c.runId());
      NodeJob j = StatusFields.of(NodeJob.class).copy(c);
      if (p != null && p.getUsage() != null) {
        j.setUsage(maxOf(p.getUsage(), c.getUsage()));
        if (c.getMeanUsage() == null) {
          j.setMeanUsage(p.getMeanUsage());
        }
      }
      out.add(j);
    }
    return out;
  }

  private static Map<String, Long> maxOf(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> m = new LinkedHashMap<>(a);
    if (b != null) {
      b.forEach((k, v) -> m.merge(k, v, Math::max));
    }
    return m;
  }

  private static NodeJob base(RunKey key) {
    NodeJob j = new NodeJob();
    j.setNamespace(key.namespace());
    j.setName(key.name());
    j.setUid(key.uid());
    j.setRun(key.run() == 1 ? null : key.run());
    j.setReplica(key.replica() == 0 ? null : key.replica());
    return j;
  }

  /** The executor's three phases are the same names as the BatchJob phases they report. */
  static JobPhase phase(RunPhase p) {
    return JobPhase.valueOf(p.name());
  }
}
