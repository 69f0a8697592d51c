package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kubectl octomy queue}: the Queued jobs in the order the next pass takes them. */
@Command(
    name = "queue",
    mixinStandardHelpOptions = true,
    description = {
      "The Queued jobs in the order the next admission pass considers them: position, effective"
          + " priority, the reason each waits and when each is expected to start.",
      "Expected starts come from the run times measured for each job type."
    })
final class QueueCommand implements Callable<Integer> {

  @Mixin ConnectionOptions options;

  @Option(
      names = {"-A", "--all-namespaces"},
      description =
          "Every namespace (needs permission to list BatchJobs in all namespaces; otherwise ask"
              + " per namespace with -n).")
  boolean allNamespaces;

  @Option(
      names = "--queue",
      paramLabel = "NAME",
      description =
          "Only the jobs of BatchQueue NAME and of the queues below it (its subtree), in the"
              + " namespace asked for; with -A in every namespace.")
  String queue;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    String format = options.machineFormat();
    try (PluginConnection c = options.connect()) {
      String ns = allNamespaces ? null : options.namespace(c);
      String query =
          queue == null ? "" : "?queue=" + URLEncoder.encode(queue, StandardCharsets.UTF_8);
      JsonNode list =
          c.getJson(
              (ns == null
                      ? "/pendingjobs"
                      : "/namespaces/" + PathSegments.namespace(ns) + "/pendingjobs")
                  + query);
      PluginOutput out = new PluginOutput(spec.commandLine().getOut(), Clock.systemDefaultZone());
      if (format != null) {
        out.machine(list, format);
        return 0;
      }
      if (list.path("items").isEmpty()) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "No queued jobs"
                + (queue == null ? "" : " in queue " + queue)
                + (ns == null ? "." : " in namespace " + ns + "."));
        err.flush();
        return 0;
      }
      List<String> header = new ArrayList<>();
      if (ns == null) {
        header.add("NAMESPACE");
      }
      header.addAll(List.of("POSITION", "NAME", "PRIORITY", "CLASS", "REASON", "EXPECTED START"));
      if (options.wide()) {
        header.addAll(List.of("IN NAMESPACE", "NODE", "BASIS"));
      }
      List<List<String>> rows = new ArrayList<>();
      for (JsonNode item : list.path("items")) {
        List<String> row = new ArrayList<>();
        if (ns == null) {
          row.add(item.path("metadata").path("namespace").asText());
        }
        row.add(item.path("position").asText());
        row.add(item.path("metadata").path("name").asText());
        row.add(item.path("effectivePriority").asText());
        row.add(PluginOutput.text(item, "serviceClass", "<none>"));
        row.add(PluginOutput.text(item, "reason", "<none>"));
        row.add(
            out.start(
                PluginOutput.text(item, "expectedStart", null),
                PluginOutput.text(item, "expectedIn", null)));
        if (options.wide()) {
          row.add(item.path("namespacePosition").asText());
          row.add(PluginOutput.text(item, "expectedNode", "<none>"));
          row.add(PluginOutput.text(item, "startBasis", ""));
        }
        rows.add(row);
      }
      out.table(header, rows);
      return 0;
    }
  }
}
