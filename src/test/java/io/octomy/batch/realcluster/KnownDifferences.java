package io.octomy.batch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The differences between standalone and the real server that stay, read from {@code
 * docs/conformance.md}: under the heading {@code ## Differences that stay}, each {@code ### `step`}
 * (or {@code ### `step` (kubectl 1.27)} for one kubectl minor version only) is followed by the
 * reason in prose and a {@code difference} block holding the exact {@link StepDifference} lines, or
 * the one word {@code subset} (standalone prints a part of the real server's lines and nothing
 * else).
 */
final class KnownDifferences {

  static final Path DOC = Path.of("docs/conformance.md");
  static final String SECTION = "## Differences that stay";
  private static final Pattern HEADING =
      Pattern.compile("^### `([a-z0-9-]+)`(?: \\(kubectl (1\\.\\d+)\\))?\\s*$");

  /** One entry: a step, the kubectl minor version it is limited to (or none), the lines. */
  record Entry(String step, Optional<String> kubectl, String reason, List<String> expected) {
    boolean subset() {
      return expected.equals(List.of("subset"));
    }

    boolean matches(StepDifference d) {
      // the document's lines carry no trailing blanks (an empty line's "err+ " is "err+")
      return subset()
          ? d.isSubsetOfReal()
          : d.lines().stream().map(String::stripTrailing).toList().equals(expected);
    }

    String heading() {
      return "### `" + step + "`" + kubectl.map(v -> " (kubectl " + v + ")").orElse("");
    }
  }

  private final List<Entry> entries;

  private KnownDifferences(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  static KnownDifferences read() {
    try {
      return parse(Files.readString(DOC));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static KnownDifferences parse(String text) {
    String doc = "\n" + text;
    int start = doc.indexOf("\n" + SECTION + "\n");
    if (start < 0) {
      throw new IllegalStateException(DOC + " has no '" + SECTION + "' section");
    }
    String[] lines = doc.substring(start + 1).split("\n", -1);
    List<Entry> entries = new ArrayList<>();
    int i = 1;
    while (i < lines.length && !lines[i].startsWith("## ")) {
      Matcher h = HEADING.matcher(lines[i]);
      if (!lines[i].startsWith("### ")) {
        i++;
        continue;
      }
      if (!h.matches()) {
        throw new IllegalStateException(DOC + ": heading not of the form ### `step`: " + lines[i]);
      }
      StringBuilder reason = new StringBuilder();
      int j = i + 1;
      while (j < lines.length && !lines[j].equals("```difference")) {
        if (lines[j].startsWith("#")) {
          throw new IllegalStateException(DOC + ": " + lines[i] + " has no ```difference block");
        }
        reason.append(lines[j]).append('\n');
        j++;
      }
      List<String> expected = new ArrayList<>();
      j++;
      while (j < lines.length && !lines[j].equals("```")) {
        expected.add(lines[j].stripTrailing());
        j++;
      }
      if (j >= lines.length) {
        throw new IllegalStateException(DOC + ": the block of " + lines[i] + " is not closed");
      }
      entries.add(
          new Entry(
              h.group(1),
              Optional.ofNullable(h.group(2)),
              reason.toString().strip(),
              List.copyOf(expected)));
      i = j + 1;
    }
    return new KnownDifferences(entries);
  }

  List<Entry> entries() {
    return entries;
  }

  /** The entry for a step under one kubectl minor version: its own one first, else the general. */
  Optional<Entry> forStep(String step, String kubectlMinor) {
    Optional<Entry> own =
        entries.stream()
            .filter(e -> e.step().equals(step) && e.kubectl().equals(Optional.of(kubectlMinor)))
            .findFirst();
    return own.isPresent()
        ? own
        : entries.stream().filter(e -> e.step().equals(step) && e.kubectl().isEmpty()).findFirst();
  }

  /** The block to paste into the document for a difference found. */
  static String entryText(String step, String kubectlMinor, StepDifference d, boolean general) {
    return "### `"
        + step
        + "`"
        + (general ? "" : " (kubectl " + kubectlMinor + ")")
        + "\nWHY IT STAYS\n```difference\n"
        + d
        + "\n```";
  }

  /** Entries by heading, to find the same heading twice. */
  Map<String, Integer> headingCounts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    entries.forEach(e -> counts.merge(e.heading(), 1, Integer::sum));
    return counts;
  }
}
