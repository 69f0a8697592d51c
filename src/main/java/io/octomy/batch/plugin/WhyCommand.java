package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code kubectl octomy why JOB}: every gate a Queued job fails, each with its remedy. */
@Command(
    name = "why",
    mixinStandardHelpOptions = true,
    description =
        "Why a Queued BatchJob is not admitted now: every gate it fails (not only the first), each"
            + " with what would clear it, and when it is expected to start.")
final class WhyCommand implements Callable<Integer> {

  @Mixin ConnectionOptions options;

  @Parameters(index = "0", paramLabel = "JOB", description = "The BatchJob's name.")
  String job;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    String format = options.machineFormat();
    String segment = PathSegments.job(job);
    try (PluginConnection c = options.connect()) {
      String ns = options.namespace(c);
      JsonNode pending =
          c.getJson("/namespaces/" + PathSegments.namespace(ns) + "/pendingjobs/" + segment);
      PluginOutput out = new PluginOutput(spec.commandLine().getOut(), Clock.systemDefaultZone());
      if (format != null) {
        out.machine(pending, format);
        return 0;
      }
      out.line(JobReport.field("Name:") + job);
      out.line(JobReport.field("Namespace:") + ns);
      JobReport.print(out, pending);
      return 0;
    }
  }
}
