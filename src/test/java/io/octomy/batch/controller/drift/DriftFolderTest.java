package io.octomy.batch.controller.drift;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DriftFolderTest {

  private static final String CPU = "octomy.io/cpu-milli";
  private static final String MEM = "octomy.io/memory-bytes";
  private static final long GIB = 1L << 30;
  private final DriftFolder folder = new DriftFolder();

  private static FinishedRun run(int i, long cpuPeak, long memPeak) {
    return new FinishedRun(
        "uid-" + i,
        "mesh-export",
        Map.of(CPU, 4000L, MEM, 4 * GIB),
        Map.of(CPU, 4000L, MEM, 4 * GIB),
        Map.of(CPU, cpuPeak, MEM, memPeak));
  }

  @Test
  void aFourTimesOverDeclaredTypeWastesThreeQuarters() {
    DriftRecord r = DriftRecord.empty();
    for (int i = 0; i < 20; i++) {
      // Really uses about a quarter: 950..1045 milli-cores, ~1 GiB.
      r = folder.fold(r, run(i, 950 + (i % 10) * 10, GIB - (i % 5) * 10_000_000L));
    }
    assertThat(r.runs()).isEqualTo(20);
    assertThat(r.overLimitRuns()).isZero();

    DriftFigures cpu = r.resources().get(CPU);
    assertThat(cpu.requested()).isEqualTo(4000);
    assertThat(cpu.usedP50()).isEqualTo(990);
    assertThat(cpu.usedP95()).isEqualTo(1040);
    assertThat(cpu.usedMax()).isEqualTo(1040);
    assertThat(cpu.waste()).isCloseTo(0.75, within(0.02));
    assertThat(cpu.suggestedRequest()).isEqualTo(1100).isBetween(cpu.usedMax(), 1300L);

    DriftFigures mem = r.resources().get(MEM);
    assertThat(mem.waste()).isCloseTo(0.75, within(0.02));
    assertThat(mem.suggestedRequest()).isBetween(GIB, GIB * 13 / 10);
  }

  @Test
  void runsThatAskedDifferentAmountsAreEachMeasuredAgainstTheirOwnRequest() {
    // Ten runs asked 4000 and used 1000; then the request was cut to 1100 and ten runs used 1000.
    DriftRecord r = DriftRecord.empty();
    for (int i = 0; i < 20; i++) {
      long asked = i < 10 ? 4000 : 1100;
      r =
          folder.fold(
              r,
              new FinishedRun(
                  "uid-" + i, "mesh-export", Map.of(CPU, asked), Map.of(), Map.of(CPU, 1000L)));
    }
    DriftFigures cpu = r.resources().get(CPU);
    assertThat(cpu.requested()).as("the latest run's request").isEqualTo(1100);
    assertThat(cpu.sampleRequests()).hasSize(20).startsWith(4000L).endsWith(1100L);
    // Each run's peak as a share of its own request: 0.25 for the first ten, 0.91 for the rest;
    // the p95 share is 0.91, so 9% of what was asked went unused (not 1 - 1000/1100 by luck, nor
    // the 75% the old runs alone would say).
    assertThat(cpu.waste()).isEqualTo(0.09);

    // The other way round: the request grew, and the old runs wasted nothing of theirs.
    DriftRecord grown = DriftRecord.empty();
    for (int i = 0; i < 20; i++) {
      long asked = i < 19 ? 1000 : 8000;
      grown =
          folder.fold(
              grown,
              new FinishedRun(
                  "uid-" + i, "mesh-export", Map.of(CPU, asked), Map.of(), Map.of(CPU, 1000L)));
    }
    // Against the latest request alone this would read 1 - 1000/8000 = 0.88.
    assertThat(grown.resources().get(CPU).waste()).isEqualTo(0.0);
    // The per-run requests survive the stored form (a restarted controller folds on).
    assertThat(DriftRecord.fromMap(grown.toMap())).isEqualTo(grown);
  }

  @Test
  void aRecordStoredBeforeRequestsWereKeptPerRunReadsAsIfEveryRunAskedTheLatestRequest() {
    DriftRecord r = folder.fold(DriftRecord.empty(), run(1, 1000, GIB));
    Map<String, Object> stored = r.toMap();
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> resources =
        (Map<String, Map<String, Object>>) stored.get("resources");
    resources.values().forEach(f -> f.remove("sampleRequests"));
    DriftRecord old = DriftRecord.fromMap(stored);
    assertThat(old.resources().get(CPU).sampleRequests()).containsExactly(4000L);
    assertThat(old).isEqualTo(r);
  }

  @Test
  void foldingTheSameJobTwiceChangesNothing() {
    DriftRecord once = folder.fold(DriftRecord.empty(), run(1, 1000, GIB));
    DriftRecord twice =
        folder.fold(once, run(1, 3000, 3 * GIB)); // re-delivered, even with other numbers
    assertThat(twice).isEqualTo(once);
    assertThat(twice.runs()).isEqualTo(1);
    assertThat(twice.foldedJobs()).containsExactly("uid-1");
    // Idempotent also after a trip through the stored form (a restarted controller).
    assertThat(folder.fold(DriftRecord.fromMap(once.toMap()), run(1, 1000, GIB)))
        .isEqualTo(DriftRecord.fromMap(once.toMap()));
  }

  @Test
  void aRunAboveAnyLimitCountsOnceAsOverLimit() {
    DriftRecord r = folder.fold(DriftRecord.empty(), run(1, 5000, 5 * GIB)); // both over
    r = folder.fold(r, run(2, 1000, 5 * GIB)); // memory over
    r = folder.fold(r, run(3, 1000, GIB)); // fine
    assertThat(r.runs()).isEqualTo(3);
    assertThat(r.overLimitRuns()).isEqualTo(2);
  }

  @Test
  void windowsAreBoundedAndPercentilesCoverOnlyTheWindow() {
    DriftFolder small = new DriftFolder(3, 4);
    DriftRecord r = DriftRecord.empty();
    long[] peaks = {9000, 9000, 100, 200, 300};
    for (int i = 0; i < peaks.length; i++) {
      r = small.fold(r, run(i, peaks[i], GIB));
    }
    DriftFigures cpu = r.resources().get(CPU);
    assertThat(cpu.samples()).containsExactly(100L, 200L, 300L);
    assertThat(cpu.usedMax()).isEqualTo(300);
    assertThat(r.foldedJobs()).containsExactly("uid-1", "uid-2", "uid-3", "uid-4");
    assertThat(r.runs()).isEqualTo(5); // counts are not windowed
  }

  @Test
  void requestedFollowsTheLatestRunAndWasteCountsOnlyRunsThatReservedSomething() {
    DriftRecord none =
        folder.fold(
            DriftRecord.empty(),
            new FinishedRun("uid-0", "mesh-export", null, null, Map.of(CPU, 1000L)));
    assertThat(none.resources().get(CPU).waste()).as("nothing was ever reserved").isNull();

    DriftRecord r = folder.fold(DriftRecord.empty(), run(1, 1000, GIB));
    // The next run declares nothing (BestEffort) and measures only processor time.
    r = folder.fold(r, new FinishedRun("uid-2", "mesh-export", null, null, Map.of(CPU, 1000L)));
    DriftFigures cpu = r.resources().get(CPU);
    assertThat(cpu.requested()).isNull();
    assertThat(cpu.sampleRequests()).containsExactly(4000L, 0L);
    assertThat(cpu.waste()).as("the first run reserved 4000 and used 1000").isEqualTo(0.75);
    assertThat(cpu.usedP95()).isEqualTo(1000);
    assertThat(cpu.suggestedRequest()).isEqualTo(1100);
    assertThat(r.resources().get(MEM).samples()).containsExactly(GIB);
  }

  @Test
  void anUnmeasurableResourceKeepsItsRequestWithoutStatistics() {
    DriftRecord r =
        folder.fold(
            DriftRecord.empty(),
            new FinishedRun(
                "uid-1",
                "cfd",
                Map.of("example.com/su2-processes", 4L),
                Map.of("example.com/su2-processes", 4L),
                Map.of()));
    DriftFigures su2 = r.resources().get("example.com/su2-processes");
    assertThat(su2.requested()).isEqualTo(4);
    assertThat(su2.usedP95()).isNull();
    assertThat(su2.waste()).isNull();
    assertThat(su2.suggestedRequest()).isNull();
    // Dropped once neither a request nor any measurement remains.
    r = folder.fold(r, new FinishedRun("uid-2", "cfd", null, null, null));
    assertThat(r.resources()).isEmpty();
    assertThat(r.runs()).isEqualTo(2);
  }

  @Test
  void timedRunsJoinTheRunTimeWindowAndUntimedOnesDoNot() {
    DriftFolder small = new DriftFolder(3, 10);
    DriftRecord r = DriftRecord.empty();
    for (int i = 0; i < 5; i++) {
      r = small.fold(r, new FinishedRun("t" + i, "solve", null, null, null, 100L * (i + 1)));
    }
    r = small.fold(r, new FinishedRun("untimed", "solve", null, null, Map.of(CPU, 5L)));
    assertThat(r.runs()).isEqualTo(6);
    assertThat(r.runTime().samples()).containsExactly(300L, 400L, 500L);
    assertThat(r.runTime().p50()).isEqualTo(400);
    assertThat(r.runTime().p90()).isEqualTo(500);
    assertThat(r.runTime().max()).isEqualTo(500);
    assertThat(small.fold(r, new FinishedRun("t4", "solve", null, null, null, 9L))).isEqualTo(r);
  }
}
