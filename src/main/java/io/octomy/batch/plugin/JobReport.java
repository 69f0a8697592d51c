package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;

/**
 * A waiting job, or a manifest's fit, as people read it: where it stands, when it is expected to
 * start and on what that rests, then every blocker in the order the pass checks them, each with
 * what would clear it.
 */
final class JobReport {

  private JobReport() {}

  /** Prints the fields of a PendingJob (or a FitReview's status) and its blockers. */
  static void print(PluginOutput out, JsonNode job) {
    String phase = job.path("phase").asText("Queued");
    if (phase.equals("Rejected") || phase.equals("Skipped")) {
      // a fit that would never be queued: no place, priority or start to tell
      out.line(field("Reason:") + PluginOutput.text(job, "reason", "<none>"));
      blockers(out, job);
      return;
    }
    out.line(field("Position:") + position(job));
    out.line(
        field("Priority:")
            + job.path("effectivePriority").asText()
            + " ("
            + PluginOutput.text(job, "serviceClass", "no class")
            + ")");
    out.line(field("Reason:") + PluginOutput.text(job, "reason", "<none>"));
    String start =
        out.start(
            PluginOutput.text(job, "expectedStart", null),
            PluginOutput.text(job, "expectedIn", null));
    String node = PluginOutput.text(job, "expectedNode", null);
    out.line(field("Expected start:") + start + (node == null ? "" : " on node " + node));
    out.line(field("Basis:") + PluginOutput.text(job, "startBasis", "none given"));
    JsonNode share = job.path("fairShare");
    if (share.isObject()) {
      out.line(field("Fair share:") + fairShare(share));
    }
    blockers(out, job);
  }

  private static void blockers(PluginOutput out, JsonNode job) {
    JsonNode blockers = job.path("blockers");
    if (blockers.isEmpty()) {
      out.line("Blockers:        none: the next pass admits it.");
      return;
    }
    out.line("Blockers (in the order the pass checks them):");
    int i = 0;
    for (JsonNode b : blockers) {
      i++;
      out.line("  " + i + ". " + b.path("reason").asText() + ": " + b.path("message").asText());
      out.line("     Remedy: " + b.path("remedy").asText());
    }
  }

  /** The fair-share term as a sentence with its numbers. */
  static String fairShare(JsonNode f) {
    return "+"
        + f.path("term").asText()
        + " of at most "
        + f.path("most").asText()
        + " to its priority: queue "
        + f.path("queue").asText()
        + " (weight "
        + f.path("weight").asText()
        + ") holds "
        + String.format(Locale.ROOT, "%.2f", f.path("share").asDouble())
        + " of the pool against the "
        + String.format(Locale.ROOT, "%.2f", f.path("deserved").asDouble())
        + " it deserves (the further below, the more it adds).";
  }

  private static String position(JsonNode job) {
    JsonNode p = job.path("position");
    if (p.isMissingNode() || p.isNull()) {
      return "not in the queue";
    }
    return p.asText()
        + " in the queue ("
        + job.path("namespacePosition").asText()
        + " in its namespace)";
  }

  static String field(String name) {
    return name + " ".repeat(Math.max(1, 17 - name.length()));
  }
}
