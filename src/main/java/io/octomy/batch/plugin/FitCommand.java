package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kubectl octomy fit -f FILE}: the decision a BatchJob manifest would get now and when it
 * would start, without creating it (a {@code FitReview}).
 */
@Command(
    name = "fit",
    mixinStandardHelpOptions = true,
    description =
        "What a BatchJob manifest would get if it were applied now: admitted or not, where, when it"
            + " would be expected to start, and every blocker with its remedy. Nothing is created.")
final class FitCommand implements Callable<Integer> {

  @Mixin ConnectionOptions options;

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE",
      description = "The BatchJob manifest (YAML or JSON); - reads standard input.")
  String file;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    String format = options.machineFormat();
    JsonNode manifest = read();
    try (PluginConnection c = options.connect()) {
      String ns = manifest.path("metadata").path("namespace").asText(null);
      if (ns == null || ns.isBlank()) {
        ns = options.namespace(c);
      } else if (options.namespace != null && !options.namespace.equals(ns)) {
        throw new PluginException(
            "error: the namespace from the provided object \""
                + ns
                + "\" does not match the namespace \""
                + options.namespace
                + "\". You must pass '--namespace="
                + ns
                + "' to perform this operation.");
      }
      ObjectNode review = new ObjectMapper().createObjectNode();
      review.put("apiVersion", "visibility.batch.octomy.io/v1alpha1").put("kind", "FitReview");
      review.putObject("spec").set("job", manifest);
      JsonNode answer =
          c.postJson("/namespaces/" + PathSegments.namespace(ns) + "/fitreviews", review);
      PluginOutput out = new PluginOutput(spec.commandLine().getOut(), Clock.systemDefaultZone());
      if (format != null) {
        out.machine(answer, format);
        return 0;
      }
      JsonNode status = answer.path("status");
      String name = manifest.path("metadata").path("name").asText("(generated name)");
      if (status.path("admitted").asBoolean()) {
        out.line(
            "batchjob "
                + name
                + " would be admitted now on node "
                + status.path("node").asText()
                + " (nothing was created).");
      } else {
        out.line(
            "batchjob "
                + name
                + " would be "
                + status.path("phase").asText()
                + ": "
                + status.path("message").asText()
                + " (nothing was created)");
      }
      JsonNode array = status.path("array");
      if (array.isObject()) {
        String end = PluginOutput.text(array, "expectedEnd", null);
        out.line(
            "An array of "
                + array.path("count").asText()
                + " items, at most "
                + array.path("maxRunning").asText()
                + " unfinished at once; what follows is for its first item, "
                + name
                + "-0. "
                + (end == null
                    ? "Its last item is not expected to end unless something else changes."
                    : "Its last item is expected to end at " + out.start(end, null) + "."));
      }
      JobReport.print(out, status);
      return 0;
    }
  }

  /** The manifest: one object of kind BatchJob, from the file or standard input. */
  private JsonNode read() {
    String text;
    try {
      if (file.equals("-")) {
        InputStream in = System.in;
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } else {
        text = Files.readString(Path.of(file));
      }
    } catch (NoSuchFileException e) {
      throw new PluginException("error: the path \"" + file + "\" does not exist");
    } catch (IOException e) {
      throw new PluginException("error: cannot read " + file + ": " + e.getMessage());
    }
    JsonNode node;
    try {
      node = new ObjectMapper(new YAMLFactory()).readTree(text);
    } catch (IOException e) {
      throw new PluginException(
          "error: " + file + " is not a YAML or JSON manifest: " + e.getMessage());
    }
    if (node == null || !node.isObject() || !"BatchJob".equals(node.path("kind").asText())) {
      throw new PluginException(
          "error: "
              + file
              + " must hold one BatchJob manifest (kind: BatchJob, apiVersion:"
              + " batch.octomy.io/v1alpha1), as you would kubectl apply it.");
    }
    return node;
  }
}
