package io.octomy.batch.admission;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The admission pass: one pure function from a {@link Snapshot} to an {@link AdmissionResult}, and
 * what is asked of it (a pass remembering the last one, the gates of some jobs at their turn, a
 * forecast of when each Queued job starts). The rules it decides by are {@link AdmissionRules}.
 *
 * <p>The pass reads no clock but {@link Snapshot#now()}, uses whole-number arithmetic only (but for
 * the rounded fair-share term of a queue's jobs' priority), and gives the same result for the same
 * snapshot whatever the order of its lists.
 */
public final class AdmissionPass {

  private AdmissionPass() {}

  /** Decides every Queued job of the snapshot. */
  public static AdmissionResult decide(Snapshot snapshot) {
    AdmissionRules pass = prepared(snapshot, PassMemory.empty(), false);
    return pass.decideAll(null);
  }

  /**
   * Decides every Queued job of the snapshot as {@link #decide(Snapshot)} does, taking from {@code
   * memory} what an earlier pass read of the jobs whose views have not changed since (see {@link
   * PassMemory}), and returns the memory for the next pass with the result.
   */
  public static RememberedPass decide(Snapshot snapshot, PassMemory memory) {
    PassRecall recall = new PassRecall(snapshot, memory, true);
    AdmissionRules pass = new AdmissionRules(snapshot, recall);
    pass.prepare();
    AdmissionResult result = pass.decideAll(null);
    PassState state = pass.state();
    return new RememberedPass(
        result, recall.next(state.queued(), state.indexByKey()), QueueStandings.of(state));
  }

  /**
   * Decides every Queued job of the snapshot, and evaluates every gate of the listed jobs at their
   * turn in the pass (after the admissions of the jobs before them), without changing a decision.
   */
  public static Inspection inspect(Snapshot snapshot, Set<JobKey> jobs) {
    AdmissionRules pass = prepared(snapshot, PassMemory.empty(), false);
    Map<JobKey, GateReport> reports = new LinkedHashMap<>();
    AdmissionResult result = pass.decideAll(GateInspector.listener(pass.state(), jobs, reports));
    return new Inspection(result, reports);
  }

  /**
   * The next pass, the gates of the listed jobs at their turn in it (as {@link #inspect}), and the
   * passes after it simulated as jobs end when {@code runTimes} expects: when each Queued job is
   * expected to be admitted (see {@link FuturePasses} for what is assumed).
   */
  public static Forecast forecast(Snapshot snapshot, RunTimeModel runTimes, Set<JobKey> inspect) {
    return forecast(snapshot, PassMemory.empty(), runTimes, inspect);
  }

  /**
   * {@link #forecast(Snapshot, RunTimeModel, Set)} with its next pass taking from {@code memory}
   * what an earlier pass read (see {@link #decide(Snapshot, PassMemory)}); the forecast is the
   * same, and the memory is left as it is.
   */
  public static Forecast forecast(
      Snapshot snapshot, PassMemory memory, RunTimeModel runTimes, Set<JobKey> inspect) {
    UncreatedItems.Expanded world = UncreatedItems.expand(snapshot);
    AdmissionRules pass = prepared(world.world(), memory, false);
    Map<JobKey, GateReport> reports = new LinkedHashMap<>();
    AdmissionResult next =
        pass.decideAll(
            inspect.isEmpty() ? null : GateInspector.listener(pass.state(), inspect, reports));
    return new FuturePasses(pass, runTimes, world.itemsOf())
        .run(next, reports)
        .withItemsToCome(world.added());
  }

  /** A pass over the snapshot with its steps 1 to 4 done, ready to decide. */
  static AdmissionRules prepared(Snapshot snapshot, PassMemory memory, boolean keepNodeOrders) {
    AdmissionRules pass =
        new AdmissionRules(snapshot, new PassRecall(snapshot, memory, keepNodeOrders));
    pass.prepare();
    return pass;
  }

  /** The words of a BackingOff wait, naming when it may run again. */
  public static String backingOffMessage(Instant notBefore) {
    return DecisionWords.backingOffMessage(notBefore);
  }
}
