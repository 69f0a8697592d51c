package io.octomy.batch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The allow-list in docs/conformance.md as the session's test reads it, and the document itself:
 * every entry names a step of the session once, says why, and holds a difference block.
 */
class KnownDifferencesTest {

  private static final String DOC =
      "# Title\n\n## Differences that stay\n\nintro\n\n"
          + "### `get-events`\nNo table yet.\n\n```difference\nout- LAST SEEN\nout+ NAME   AGE\n```\n\n"
          + "### `get-events` (kubectl 1.27)\nOlder kubectl.\n```difference\nexit: 1 -> 0\n```\n\n"
          + "### `api-resources`\nFewer kinds.\n```difference\nsubset\n```\n\n"
          + "## Fixed\n\n### `not-read`\n";

  @Test
  void entriesAreReadWithTheirVersionAndLines() {
    KnownDifferences k = KnownDifferences.parse(DOC);
    assertThat(k.entries()).hasSize(3);
    assertThat(k.forStep("get-events", "1.33").orElseThrow().expected())
        .containsExactly("out- LAST SEEN", "out+ NAME   AGE");
    assertThat(k.forStep("get-events", "1.27").orElseThrow().expected())
        .containsExactly("exit: 1 -> 0");
    assertThat(k.forStep("not-read", "1.33")).isEqualTo(Optional.empty());
  }

  @Test
  void aSubsetEntryAcceptsOnlyLinesMissingFromStandalonesOutput() {
    KnownDifferences.Entry subset =
        KnownDifferences.parse(DOC).forStep("api-resources", "1.33").orElseThrow();
    assertThat(subset.matches(new StepDifference(List.of("out- apps/v1")))).isTrue();
    assertThat(subset.matches(new StepDifference(List.of("out- apps/v1", "out+ extra/v1"))))
        .isFalse();
    assertThat(subset.matches(new StepDifference(List.of("exit: 0 -> 1")))).isFalse();
  }

  @Test
  void anEmptyLineOfADifferenceMatchesItsEntryWrittenWithoutTrailingBlanks() {
    KnownDifferences.Entry e =
        KnownDifferences.parse(
                "## Differences that stay\n### `a`\nwhy\n```difference\nerr+ x\nerr+ \n```\n")
            .forStep("a", "1.33")
            .orElseThrow();
    StepDifference d = new StepDifference(List.of("err+ x", "err+ "));
    assertThat(e.expected()).containsExactly("err+ x", "err+");
    assertThat(e.matches(d)).isTrue();
    assertThat(d.toString()).isEqualTo("err+ x\nerr+");
    assertThat(e.matches(new StepDifference(List.of("err+ x", "err+ y")))).isFalse();
  }

  @Test
  void aMalformedEntryIsRefused() {
    assertThatThrownBy(
            () -> KnownDifferences.parse("## Differences that stay\n### get-events\ntext\n"))
        .hasMessageContaining("heading not of the form");
    assertThatThrownBy(
            () ->
                KnownDifferences.parse(
                    "x\n## Differences that stay\n### `a`\ntext\n### `b`\n```difference\n```\n"))
        .hasMessageContaining("has no ```difference block");
  }

  @Test
  void theDocumentNamesOnlyStepsOfTheSessionEachOnceWithAReason() {
    List<String> steps = KubectlSession.steps().stream().map(KubectlSession.Step::name).toList();
    KnownDifferences known = KnownDifferences.read();
    assertThat(known.entries()).isNotEmpty();
    for (KnownDifferences.Entry e : known.entries()) {
      assertThat(steps).as(e.heading()).contains(e.step());
      assertThat(e.reason()).as(e.heading() + " says why it stays").isNotBlank();
      assertThat(e.expected()).as(e.heading() + " holds the difference").isNotEmpty();
    }
    assertThat(known.headingCounts()).allSatisfy((h, n) -> assertThat(n).as(h).isOne());
  }

  @Test
  void theSessionCoversWhatItPromises() {
    List<String> steps = KubectlSession.steps().stream().map(KubectlSession.Step::name).toList();
    assertThat(steps)
        .contains(
            "apply-directory",
            "get-yaml",
            "get-json",
            "get-name",
            "get-wide",
            "get-custom-columns",
            "get-jsonpath",
            "get-go-template",
            "watch",
            "describe-job",
            "get-events",
            "explain",
            "diff-changed",
            "server-side-apply-second-manager-conflict",
            "server-side-apply-force-conflicts",
            "apply-dry-run-server",
            "prune-with-allowlist",
            "prune-default-allowlist",
            "wait-condition",
            "wait-jsonpath",
            "patch-json",
            "patch-merge",
            "patch-strategic-custom-resource",
            "label-selectors",
            "field-selectors",
            "delete-cascade-background",
            "delete-cascade-foreground",
            "delete-cascade-orphan",
            "delete-with-finalizer",
            "auth-can-i",
            "api-resources",
            "api-versions",
            "chunked-list");
    assertThat(steps.stream().filter(s -> s.startsWith("bad-")).count()).isGreaterThan(10);
  }
}
