package io.octomy.batch.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fault suite: each scenario prints its figures and whether it held. Full size by default;
 * {@link FaultSuiteE2E} runs the short version in {@code mvn verify}. See docs/reliability.md.
 */
public final class FaultSuite {

  /** How big each scenario is. */
  record Sizes(
      int kills,
      int killNodes,
      int killJobs,
      int standaloneKills,
      int stormJobs,
      Duration storm,
      int malformed,
      Duration heartbeatTimeout) {
    static Sizes full() {
      return new Sizes(50, 40, 2000, 10, 1000, Duration.ofSeconds(30), 1000, Duration.ofSeconds(3));
    }

    static Sizes quick() {
      return new Sizes(3, 8, 100, 1, 150, Duration.ofSeconds(5), 120, Duration.ofSeconds(3));
    }
  }

  private FaultSuite() {}

  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv, Map.of("size", "full", "only", "all", "seed", "7"));
    Sizes s = "quick".equals(a.string("size")) ? Sizes.quick() : Sizes.full();
    System.out.println("fault suite " + a + " " + s);
    List<Boolean> passed = new ArrayList<>();
    List<String> scenarios =
        "malformed-mock-here".equals(a.string("only"))
            ? List.of("malformed-mock-here")
            : List.of(
                "kill-controller",
                "kill-standalone",
                "storm",
                "malformed",
                "malformed-mock",
                "hostile-writes",
                "exhaustion",
                "out-of-memory",
                "heap-full",
                "silent-agent");
    if (!"all".equals(a.string("only")) && !scenarios.contains(a.string("only"))) {
      // a name that runs nothing must not pass
      System.err.println(
          "--only takes all or one of "
              + String.join(", ", scenarios)
              + ", not "
              + a.string("only"));
      System.exit(2);
    }
    for (String scenario : scenarios) {
      if (!"all".equals(a.string("only")) && !a.string("only").equals(scenario)) {
        continue;
      }
      if ("malformed-mock".equals(scenario) && "malformed-mock-here".equals(a.string("only"))) {
        continue;
      }
      long t = System.nanoTime();
      boolean ok = run(scenario, s, a.integer("seed"));
      passed.add(ok);
      System.out.printf(
          "[%s] %s in %.0f s%n%n", ok ? "PASS" : "FAIL", scenario, (System.nanoTime() - t) / 1e9);
    }
    System.out.println(passed.contains(false) ? "FAULT SUITE: FAILED" : "FAULT SUITE: ALL PASSED");
    System.exit(passed.contains(false) ? 1 : 0);
  }

  /**
   * Runs one scenario in a work folder of its own: removed when the scenario passes, kept (its logs
   * and state) and named when it fails, for whoever looks into it.
   */
  static boolean run(String scenario, Sizes s, long seed) throws Exception {
    Path work = Files.createTempDirectory("octomy-fault-" + scenario);
    boolean passed = runIn(work, scenario, s, seed);
    if (passed) {
      try {
        StandaloneChild.deleteTree(work);
      } catch (IOException | UncheckedIOException e) {
        // A folder left behind is no failure of the scenario.
        System.out.println("the work folder " + work + " was not removed: " + e);
      }
    } else {
      System.out.println("the failed scenario's logs and state are kept in " + work);
    }
    return passed;
  }

  private static boolean runIn(Path work, String scenario, Sizes s, long seed) throws Exception {
    switch (scenario) {
      case "kill-controller" -> {
        var r = ControllerKillFault.run(work, s.kills(), s.killNodes(), s.killJobs(), seed);
        System.out.println(r);
        return r.passed();
      }
      case "kill-standalone" -> {
        var r = StandaloneKillFault.run(work, s.standaloneKills(), seed);
        System.out.println(r);
        return r.passed();
      }
      case "storm" -> {
        var r = ConflictStormFault.run(work, 20, s.stormJobs(), s.storm(), seed);
        System.out.println(r);
        return r.passed();
      }
      case "malformed" -> {
        var e = MalformedManifestFault.embedded(work, s.malformed(), seed);
        System.out.println(e);
        e.examples().forEach(x -> System.out.println("  e.g. " + x));
        return e.passed();
      }
      case "malformed-mock" -> {
        // In a child JVM: a controller that dies takes its JVM with it (JOSDK exits on a fatal
        // informer error), and this suite must live to report it.
        Path log = work.resolve("malformed-mock.log");
        try (ChildJvm child =
            ChildJvm.start(
                log,
                "512m",
                FaultSuite.class.getName(),
                "--only",
                "malformed-mock-here",
                "--size",
                s == Sizes.quick() || s.equals(Sizes.quick()) ? "quick" : "full",
                "--seed",
                Long.toString(seed))) {
          long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
          while (child.alive() && System.nanoTime() < deadline) {
            Thread.sleep(200);
          }
        }
        String out = Files.readString(log);
        for (String line : out.split("\n")) {
          if (line.startsWith("malformed manifests")
              || line.startsWith("  e.g.")
              || line.contains("Fatal error in informer")
              || line.startsWith("Caused by: com.fasterxml")) {
            System.out.println(line);
          }
        }
        boolean crashed = out.contains("Fatal error in informer");
        boolean passed = out.contains("[PASS] malformed-mock-here");
        System.out.println(
            "controller crashed: "
                + crashed
                + "; scenario passed: "
                + passed
                + " (child JVM log: "
                + log
                + ")");
        return !crashed && passed;
      }
      case "malformed-mock-here" -> {
        var m = MalformedManifestFault.mock(s.malformed(), seed);
        System.out.println(m);
        m.examples().forEach(x -> System.out.println("  e.g. " + x));
        return m.passed();
      }
      case "hostile-writes" -> {
        boolean quick = s.equals(Sizes.quick());
        var r = HostileWriteFault.run(work, s.malformed(), quick ? 2 : 5, seed);
        System.out.println(r);
        r.examples().forEach(x -> System.out.println("  e.g. " + x));
        return r.passed();
      }
      case "exhaustion" -> {
        boolean quick = s.equals(Sizes.quick());
        var r = ExhaustionFault.run(work, quick ? 500 : 5_000, quick ? 20 : 200, quick ? 60 : 400);
        System.out.println(r);
        return r.passed();
      }
      case "out-of-memory" -> {
        var r = OutOfMemoryFault.run(work, s.equals(Sizes.quick()) ? 8 : 32);
        System.out.println(r);
        return r.passed();
      }
      case "heap-full" -> {
        var r = HeapFullFault.run(work);
        System.out.println(r);
        return r.passed();
      }
      case "silent-agent" -> {
        var r = SilentAgentFault.run(work, s.heartbeatTimeout());
        System.out.println(r);
        return r.passed();
      }
      default -> throw new IllegalArgumentException(scenario);
    }
  }
}
