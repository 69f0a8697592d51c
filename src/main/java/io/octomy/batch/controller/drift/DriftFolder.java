package io.octomy.batch.controller.drift;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Folds finished runs into drift records. Pure: the same record and run always give the same
 * result, and folding a run whose job UID is already in the record gives the record back unchanged,
 * so a controller that restarts and re-sees finished jobs never counts one twice.
 *
 * <p>Both memories are bounded so the record fits a Kubernetes status: the last {@code
 * sampleWindow} measured peaks per resource (percentiles are exact over that window) and the last
 * {@code uidWindow} job UIDs. The UID window is twice the sample window by default: re-delivery of
 * a job that old is not expected, and the controller should also remember on the job itself that it
 * was folded.
 */
public final class DriftFolder {

  /** Runs kept per resource for percentiles. */
  public static final int DEFAULT_SAMPLE_WINDOW = 100;

  /** Job UIDs remembered for idempotence. */
  public static final int DEFAULT_UID_WINDOW = 200;

  private final int sampleWindow;
  private final int uidWindow;

  public DriftFolder() {
    this(DEFAULT_SAMPLE_WINDOW, DEFAULT_UID_WINDOW);
  }

  public DriftFolder(int sampleWindow, int uidWindow) {
    if (sampleWindow < 1 || uidWindow < 1) {
      throw new IllegalArgumentException("windows must hold at least one entry");
    }
    this.sampleWindow = sampleWindow;
    this.uidWindow = uidWindow;
  }

  /**
   * Folds one run in.
   *
   * <p>Per resource named by the record, the run's requests or its measured peaks: a measured peak
   * joins the window together with what this run requested of it (0 for nothing), so waste is
   * measured against what each run asked; {@code requested} becomes this run's request (absent if
   * this run did not request it); the statistics are recomputed. A resource with neither a request
   * nor any measurement left is dropped. A timed run's run time joins the run-time window, which is
   * kept as long as the sample window.
   */
  public DriftRecord fold(DriftRecord record, FinishedRun run) {
    if (record.foldedJobs().contains(run.jobUid())) {
      return record;
    }
    Set<String> names = new LinkedHashSet<>(record.resources().keySet());
    names.addAll(run.requests().keySet());
    names.addAll(run.peakUsage().keySet());

    Map<String, DriftFigures> resources = new TreeMap<>();
    for (String name : names) {
      DriftFigures old = record.resources().get(name);
      List<Long> samples = new ArrayList<>(old == null ? List.of() : old.samples());
      List<Long> asked = new ArrayList<>(old == null ? List.of() : old.sampleRequests());
      Long requested = run.requests().get(name);
      Long peak = run.peakUsage().get(name);
      if (peak != null) {
        samples.add(peak);
        asked.add(requested == null ? 0L : requested);
      }
      trimFront(samples, sampleWindow);
      trimFront(asked, sampleWindow);
      if (requested != null || !samples.isEmpty()) {
        resources.put(name, DriftFigures.of(requested, samples, asked));
      }
    }
    List<String> uids = new ArrayList<>(record.foldedJobs());
    uids.add(run.jobUid());
    trimFront(uids, uidWindow);

    List<Long> times = new ArrayList<>(record.runTime().samples());
    if (run.runSeconds() != null) {
      times.add(run.runSeconds());
      trimFront(times, sampleWindow);
    }

    boolean over = !OverLimit.exceeded(run.limits(), run.peakUsage()).isEmpty();
    return new DriftRecord(
        record.runs() + 1,
        record.overLimitRuns() + (over ? 1 : 0),
        resources,
        uids,
        new RunTimeWindow(times));
  }

  private static <T> void trimFront(List<T> list, int max) {
    if (list.size() > max) {
      list.subList(0, list.size() - max).clear();
    }
  }
}
