package io.octomy.batch.realcluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How one step's normalised output on standalone differs from the real server's, as lines that can
 * be written down in {@code docs/conformance.md}:
 *
 * <ul>
 *   <li>{@code exit: R -> S} when the exit codes differ;
 *   <li>{@code out- LINE} / {@code err- LINE}: a line only the real server's run printed;
 *   <li>{@code out+ LINE} / {@code err+ LINE}: a line only standalone's run printed;
 *   <li>{@code out~ order} / {@code err~ order}: the same lines in another order.
 * </ul>
 *
 * Empty when the step printed the same on both.
 */
record StepDifference(List<String> lines) {

  StepDifference {
    lines = List.copyOf(lines);
  }

  static StepDifference between(
      KubectlSession.StepOutput real, KubectlSession.StepOutput standalone) {
    List<String> lines = new ArrayList<>();
    if (real.exitCode() != standalone.exitCode()) {
      lines.add("exit: " + real.exitCode() + " -> " + standalone.exitCode());
    }
    compare("out", real.out(), standalone.out(), lines);
    compare("err", real.err(), standalone.err(), lines);
    return new StepDifference(lines);
  }

  private static void compare(String stream, String real, String standalone, List<String> into) {
    List<String> realLines = lines(real);
    List<String> standaloneLines = lines(standalone);
    if (realLines.equals(standaloneLines)) {
      return;
    }
    List<String> onlyReal = missingFrom(realLines, standaloneLines);
    List<String> onlyStandalone = missingFrom(standaloneLines, realLines);
    onlyReal.forEach(l -> into.add(stream + "- " + l));
    onlyStandalone.forEach(l -> into.add(stream + "+ " + l));
    if (onlyReal.isEmpty() && onlyStandalone.isEmpty()) {
      into.add(stream + "~ order");
    }
  }

  /** Lines of {@code a} left over once each line of {@code b} has cancelled one equal line. */
  private static List<String> missingFrom(List<String> a, List<String> b) {
    Map<String, Integer> counts = new HashMap<>();
    b.forEach(l -> counts.merge(l, 1, Integer::sum));
    List<String> left = new ArrayList<>();
    for (String l : a) {
      Integer n = counts.get(l);
      if (n == null || n == 0) {
        left.add(l);
      } else {
        counts.put(l, n - 1);
      }
    }
    return left;
  }

  /** Lines without trailing blanks, and without the empty lines at the end. */
  private static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    for (String l : text.split("\n", -1)) {
      out.add(l.stripTrailing());
    }
    while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
      out.remove(out.size() - 1);
    }
    return out;
  }

  boolean isEmpty() {
    return lines.isEmpty();
  }

  /** Whether only lines the real server printed, on standard output, are missing. */
  boolean isSubsetOfReal() {
    return !lines.isEmpty() && lines.stream().allMatch(l -> l.startsWith("out- "));
  }

  @Override
  public String toString() {
    return String.join("\n", lines.stream().map(String::stripTrailing).toList());
  }
}
