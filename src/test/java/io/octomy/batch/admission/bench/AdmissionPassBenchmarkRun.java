package io.octomy.batch.admission.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs {@link AdmissionPassBenchmark} and {@link RememberingPassBenchmark} from Maven's {@code
 * bench} profile, which points surefire at this class only; {@code mvn verify} never includes it
 * (its name does not end in Test). JMH's arguments come from the {@code jmh.args} property. Prints
 * median and mean per size and how the full pass's time grows against jobs x nodes.
 */
class AdmissionPassBenchmarkRun {

  @Test
  void run() throws Exception {
    AdmissionPassBenchmark.printWorlds();
    String args =
        System.getProperty("jmh.args", "-f 1 -wi 3 -i 5 (AdmissionPass|RememberingPass)Benchmark");
    Collection<RunResult> results =
        new Runner(new CommandLineOptions(args.trim().split("\\s+"))).run();
    assertThat(results).isNotEmpty();
    List<String> lines = new ArrayList<>();
    double smallMedian = 0;
    double largeMedian = 0;
    for (RunResult result : results) {
      String size = result.getParams().getParam("size");
      String method = result.getParams().getBenchmark().replaceAll(".*\\.(\\w+\\.\\w+)$", "$1");
      Statistics stats = result.getPrimaryResult().getStatistics();
      double median = stats.getPercentile(50);
      lines.add(
          String.format(
              "%-44s %-11s median %8.3f ms, mean %8.3f ms, p90 %8.3f ms, max %8.3f ms, %d samples",
              method,
              size,
              median,
              stats.getMean(),
              stats.getPercentile(90),
              stats.getMax(),
              stats.getN()));
      if (!method.endsWith(".decide")) {
        continue;
      } else if (size.equals("1000x100")) {
        smallMedian = median;
      } else if (size.equals("10000x1000")) {
        largeMedian = median;
      }
    }
    System.out.println("=== admission pass, ms per pass ===");
    lines.forEach(System.out::println);
    if (smallMedian > 0 && largeMedian > 0) {
      System.out.printf(
          "median ratio 10000x1000 / 1000x100 = %.1f (jobs x nodes ratio is 100)%n",
          largeMedian / smallMedian);
    }
  }
}
