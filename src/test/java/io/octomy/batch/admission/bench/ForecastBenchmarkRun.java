package io.octomy.batch.admission.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs {@link ForecastBenchmark} from Maven's {@code bench} profile ({@code
 * -Dbench.runner=ForecastBenchmarkRun}); JMH's arguments come from {@code forecast.jmh.args}.
 * Prints each operation's median and p90 per size, and the forecast and the queue answer as ratios
 * to the admission pass measured in the same run.
 */
class ForecastBenchmarkRun {

  @Test
  void run() throws Exception {
    ForecastBenchmark.printWorlds();
    String args =
        System.getProperty("forecast.jmh.args", "-f 1 -wi 3 -w 2s -i 5 -r 3s ForecastBenchmark");
    Collection<RunResult> results =
        new Runner(new CommandLineOptions(args.trim().split("\\s+"))).run();
    assertThat(results).isNotEmpty();
    Map<String, Double> medians = new HashMap<>();
    System.out.println("=== expected starts, ms per call ===");
    for (RunResult result : results) {
      String size = result.getParams().getParam("size");
      String op = result.getParams().getBenchmark().replaceAll(".*\\.", "");
      Statistics stats = result.getPrimaryResult().getStatistics();
      medians.put(size + " " + op, stats.getPercentile(50));
      System.out.printf(
          "%-11s %-19s median %8.2f ms, p90 %8.2f ms, max %8.2f ms, %d samples%n",
          size, op, stats.getPercentile(50), stats.getPercentile(90), stats.getMax(), stats.getN());
    }
    for (String size : new String[] {"1000x100", "10000x1000"}) {
      Double pass = medians.get(size + " pass");
      if (pass != null) {
        for (String op : new String[] {"forecast", "forecastRemembering", "queue"}) {
          Double m = medians.get(size + " " + op);
          if (m != null) {
            System.out.printf("%-11s %s / pass = %.2f%n", size, op, m / pass);
          }
        }
      }
    }
  }
}
