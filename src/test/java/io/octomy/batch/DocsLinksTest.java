package io.octomy.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link in README.md and docs/*.md leads somewhere: the file exists and, when the
 * link names a {@code #section}, that file has a heading with that anchor under GitHub's rules. The
 * README is a front door to the docs, so a moved section must not leave a dead link behind.
 */
class DocsLinksTest {

  private static final Pattern INLINE_LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE_LINK =
      Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*(\\S+)");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
  private static final Pattern SCHEME = Pattern.compile("^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)");
  private static final Pattern LINE_ANCHOR = Pattern.compile("L\\d+(?:-L\\d+)?");

  @Test
  void everyRelativeLinkInTheReadmeAndTheDocsResolves() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    assertThat(docs).hasSizeGreaterThan(1);
    List<String> broken = new ArrayList<>();
    for (Path doc : docs) {
      broken.addAll(brokenLinks(doc));
    }
    assertThat(broken).as("broken links; point each at an existing file and heading").isEmpty();
  }

  @Test
  void aMissingFileOrHeadingIsReported(@TempDir Path dir) throws IOException {
    Files.writeString(dir.resolve("other.md"), "# Other\n\n## The `kubectl` way (A, b)\n");
    Files.writeString(
        dir.resolve("doc.md"),
        String.join(
            "\n",
            "# Doc",
            "[fine](other.md#the-kubectl-way-a-b) [self](#doc) [web](https://example.com/x.md)",
            "[gone](missing.md) [no heading](other.md#the-kubectl-way) [no self](#nowhere)",
            "`[in code](missing-too.md)`",
            "```",
            "[in a fence](missing-three.md)",
            "```"));
    assertThat(brokenLinks(dir.resolve("doc.md")))
        .hasSize(3)
        .anySatisfy(b -> assertThat(b).contains("missing.md").contains("no such file"))
        .anySatisfy(b -> assertThat(b).contains("other.md#the-kubectl-way ").contains("no heading"))
        .anySatisfy(b -> assertThat(b).contains("#nowhere").contains("no heading"));
  }

  @Test
  void anchorsFollowGitHubsSlugRules() {
    assertThat(anchors("## The visibility API (`kubectl octomy` on a cluster)"))
        .containsExactly("the-visibility-api-kubectl-octomy-on-a-cluster");
    assertThat(anchors("## Standalone's processes and listeners\n## Options\n## Options"))
        .containsExactly("standalones-processes-and-listeners", "options", "options-1");
    assertThat(anchors("# Targets (2026-12-05, 15:00–15:18 UTC)\n```\n# not a heading\n```"))
        .containsExactly("targets-2026-12-05-15001518-utc");
    assertThat(anchors("### `snake_case` and **bold** [a link](x.md)"))
        .containsExactly("snake_case-and-bold-a-link");
  }

  /** Each broken link of one file as "file: target — why". */
  private static List<String> brokenLinks(Path doc) throws IOException {
    String text = withoutCode(Files.readString(doc));
    List<String> targets = new ArrayList<>();
    for (Pattern p : List.of(INLINE_LINK, REFERENCE_LINK)) {
      Matcher m = p.matcher(text);
      while (m.find()) {
        targets.add(m.group(1));
      }
    }
    List<String> broken = new ArrayList<>();
    for (String target : targets) {
      if (SCHEME.matcher(target).find()) {
        continue;
      }
      int hash = target.indexOf('#');
      String file = hash < 0 ? target : target.substring(0, hash);
      String anchor = hash < 0 ? "" : target.substring(hash + 1);
      Path to =
          file.isEmpty()
              ? doc
              : doc.toAbsolutePath()
                  .getParent()
                  .resolve(URLDecoder.decode(file, StandardCharsets.UTF_8))
                  .normalize();
      String why = null;
      if (!Files.exists(to)) {
        why = "no such file " + to;
      } else if (!anchor.isEmpty() && to.toString().endsWith(".md")) {
        Set<String> headings = anchors(Files.readString(to));
        if (!headings.contains(anchor)) {
          why = "no heading with that anchor in " + to.getFileName() + "; it has " + headings;
        }
      } else if (!anchor.isEmpty() && !LINE_ANCHOR.matcher(anchor).matches()) {
        why = "an anchor into a file that is not Markdown can only be a line, like #L12";
      }
      if (why != null) {
        broken.add(doc + ": " + target + " — " + why);
      }
    }
    return broken;
  }

  /**
   * The anchors GitHub gives a Markdown file's headings: the heading's text without its markup,
   * lower-cased, with every character but letters, digits, '-', '_' and spaces dropped and spaces
   * turned into '-'; a repeated anchor gets "-1", "-2"... Explicit HTML anchors count too.
   */
  static Set<String> anchors(String markdown) {
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : withoutFences(markdown).lines().toList()) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        String text =
            h.group(1)
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replaceAll("[`*]", "")
                .toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{M}\\p{N}_\\- ]", "")
                .replace(' ', '-');
        int n = seen.merge(text, 1, Integer::sum) - 1;
        anchors.add(n == 0 ? text : text + "-" + n);
      }
      Matcher a = HTML_ANCHOR.matcher(line);
      while (a.find()) {
        anchors.add(a.group(1));
      }
    }
    return anchors;
  }

  /** Fenced blocks and inline code spans hold examples, not links. */
  private static String withoutCode(String markdown) {
    return withoutFences(markdown).replaceAll("`[^`\n]*`", "");
  }

  private static String withoutFences(String markdown) {
    StringBuilder out = new StringBuilder();
    boolean inFence = false;
    for (String line : markdown.lines().toList()) {
      String t = line.stripLeading();
      if (t.startsWith("```") || t.startsWith("~~~")) {
        inFence = !inFence;
        continue;
      }
      if (!inFence) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }
}
