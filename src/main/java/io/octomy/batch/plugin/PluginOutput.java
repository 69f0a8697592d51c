package io.octomy.batch.plugin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * How the plugin prints: the server's object as JSON or YAML, or for people a table whose columns
 * are padded as kubectl pads them (three spaces), and times as local clock times with how far off
 * they are.
 */
final class PluginOutput {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private final PrintWriter out;
  private final Clock clock;
  private final ZoneId zone;

  PluginOutput(PrintWriter out, Clock clock) {
    this.out = out;
    this.clock = clock;
    this.zone = clock.getZone();
  }

  /** Prints the object in the machine format ("json" or "yaml"). */
  void machine(JsonNode node, String format) {
    try {
      String text =
          format.equals("json") ? JSON.writeValueAsString(node) : YAML.writeValueAsString(node);
      out.print(text.endsWith("\n") ? text : text + "\n");
      out.flush();
    } catch (JsonProcessingException e) {
      throw new PluginException("cannot print the answer: " + e.getMessage());
    }
  }

  void line(String text) {
    out.println(text);
    out.flush();
  }

  /** A table: a header row and rows, each column as wide as its widest cell plus three spaces. */
  void table(List<String> header, List<List<String>> rows) {
    int[] widths = new int[header.size()];
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : all) {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        s.append(row.get(i));
        if (i < row.size() - 1) {
          s.append(" ".repeat(widths[i] - row.get(i).length() + 3));
        }
      }
      out.println(s);
    }
    out.flush();
  }

  /**
   * An expected start as people read it: "now", "13:42 (in 12m)", or with the date when it is not
   * today; "unknown" when the server expects none. How far off it is comes from the server ({@code
   * expectedIn}, counted from the moment the answer is about), so the span matches the start basis
   * printed beside it whatever this machine's clock says.
   */
  String start(String isoInstant, String in) {
    if (isoInstant == null || isoInstant.isBlank()) {
      return "unknown";
    }
    Instant at;
    try {
      at = Instant.parse(isoInstant);
    } catch (DateTimeParseException e) {
      return isoInstant;
    }
    if ("now".equals(in)) {
      return "now";
    }
    ZonedDateTime local = at.atZone(zone);
    String clockTime = local.format(DateTimeFormatter.ofPattern("HH:mm"));
    if (!local.toLocalDate().equals(LocalDate.ofInstant(clock.instant(), zone))) {
      clockTime = local.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
    }
    return in == null ? clockTime : clockTime + " (in " + in + ")";
  }

  /** A text field of the server's object, or the fallback when it is missing. */
  static String text(JsonNode node, String field, String fallback) {
    JsonNode v = node.path(field);
    return v.isMissingNode() || v.isNull() || v.asText().isEmpty() ? fallback : v.asText();
  }
}
