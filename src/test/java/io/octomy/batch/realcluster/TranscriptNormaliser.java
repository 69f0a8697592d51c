package io.octomy.batch.realcluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes out of a kubectl transcript what differs between any two servers, or any two runs, for
 * reasons that say nothing about conformance: ages, uids, resourceVersions, timestamps, continue
 * tokens, server addresses, certificate data, generated name suffixes, temporary paths and the
 * width of table columns (which follows the width of an age). Two facts a server is free to order
 * as it likes are put in one order: the causes of an Invalid error (the real server collects them
 * from a Go map) and the keys of a JSON object printed raw.
 */
final class TranscriptNormaliser {

  private record Rule(Pattern pattern, String replacement) {}

  private static final List<Rule> RULES =
      List.of(
          rule("https://127\\.0\\.0\\.1:\\d+", "<server>"),
          rule(
              "(certificate-authority-data|client-certificate-data|client-key-data|token):"
                  + " \\S+",
              "$1: <data>"),
          rule("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uid>"),
          // RFC 3339 (objects), kubectl describe's RFC 1123, diff -u file headers
          rule(
              "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)", "<time>"),
          rule(
              "(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d\\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct"
                  + "|Nov|Dec) \\d{4} \\d\\d:\\d\\d:\\d\\d [+-]\\d{4}",
              "<time>"),
          rule("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d+ [+-]\\d{4}", "<time>"),
          // klog's header: level, date, time, thread id
          rule("(?m)^([IWEF])\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6}\\s+\\d+ ", "$1<klog> "),
          rule("(resourceVersion\"?:\\s*\\\\?\"?)\\d+", "$1<rv>"),
          rule("(Resource Version:\\s+)\\d+", "$1<rv>"),
          rule("(resourceVersion=)\\d+", "$1<rv>"),
          rule("(\"continue\":\\s*\")[^\"]+", "$1<continue>"),
          rule("(continue=)[^&\\s\"]+", "$1<continue>"),
          rule("\\bgen-[a-z0-9]{5}\\b", "gen-<suffix>"),
          rule("/tmp/(LIVE|MERGED)-\\d+", "<$1>"),
          // kubectl's ages: 5s, 2m3s, 3h, 2d3h, 400d, 3y20d; <invalid> for a time in the future
          rule("(?<![\\w.:/-])(\\d+[smhdy]){1,2}(?![\\w.:/-])|<invalid>", "<age>"),
          rule("(?<=\\S) {2,}", "   "),
          // kubectl's own report that its deadline cut a watch short: printed or not by a race
          rule(
              "(?m)^E<klog> reflector\\.go:\\d+\\] \"Failed to watch\" err=\"context deadline"
                  + " exceeded\".*\n",
              ""));

  private static final Pattern INLINE_CAUSES = Pattern.compile("is invalid: \\[(.*)\\]$");
  private static final Pattern CAUSE_START =
      Pattern.compile(", (?=(?:<nil>|[A-Za-z][\\w.\\-/\\[\\]]*): )");
  private static final ObjectMapper SORTED =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private TranscriptNormaliser() {}

  private static Rule rule(String regex, String replacement) {
    return new Rule(Pattern.compile(regex), replacement);
  }

  /**
   * The text with every rule applied, after the literal replacements of one run (its scratch
   * folders, namespace and name suffix), which are made in their order.
   */
  static String normalise(String text, Map<String, String> literals) {
    String s = text;
    for (Map.Entry<String, String> l : literals.entrySet()) {
      s = s.replace(l.getKey(), l.getValue());
    }
    for (Rule r : RULES) {
      s = r.pattern().matcher(s).replaceAll(r.replacement());
    }
    List<String> lines = new ArrayList<>();
    for (String line : s.split("\n", -1)) {
      lines.add(canonicalJson(sortInlineCauses(line.stripTrailing())));
    }
    return String.join("\n", sortBulletCauses(lines));
  }

  /** {@code ... is invalid: [b: x, a: y]} with its causes in one order. */
  static String sortInlineCauses(String line) {
    Matcher m = INLINE_CAUSES.matcher(line);
    if (!m.find()) {
      return line;
    }
    List<String> causes = new ArrayList<>(List.of(CAUSE_START.split(m.group(1))));
    causes.sort(null);
    return line.substring(0, m.start(1)) + String.join(", ", causes) + "]";
  }

  /** Runs of {@code * cause} lines (kubectl's list of an Invalid error's causes), sorted. */
  static List<String> sortBulletCauses(List<String> lines) {
    List<String> out = new ArrayList<>(lines.size());
    int i = 0;
    while (i < lines.size()) {
      int j = i;
      while (j < lines.size() && lines.get(j).startsWith("* ")) {
        j++;
      }
      if (j > i) {
        List<String> run = new ArrayList<>(lines.subList(i, j));
        run.sort(null);
        out.addAll(run);
        i = j;
      } else {
        out.add(lines.get(i++));
      }
    }
    return out;
  }

  /** A line that is one JSON object (a raw watch event), printed with its keys sorted. */
  static String canonicalJson(String line) {
    if (!line.startsWith("{\"") || !line.endsWith("}")) {
      return line;
    }
    try {
      JsonNode tree = SORTED.readTree(line);
      return SORTED.writeValueAsString(SORTED.treeToValue(tree, Object.class));
    } catch (JsonProcessingException e) {
      return line;
    }
  }
}
