package io.octomy.batch.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import io.octomy.batch.apiserver.CelRules;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No real API server runs here, so every x-kubernetes-validations rule of the generated CRDs is
 * compiled with standard CEL and evaluated on good and bad samples, as an API server would.
 */
class CelRulesTest {

  /** The evaluator standalone mode enforces the rules with. */
  private static final CelRules CEL = new CelRules();

  /** Samples per rule location: values that must pass, and values that must fail. */
  private record Samples(List<String> good, List<String> bad) {}

  private static final Map<String, Samples> SAMPLES =
      samples(
          "batchjobs/spec/resources",
          new Samples(
              List.of(
                  "{}",
                  "{requests: {a.io/x: 1}}",
                  "{limits: {a.io/x: 1}}",
                  "{requests: {a.io/x: 2}, limits: {a.io/x: 2}}",
                  "{requests: {a.io/x: 2, b.io/y: 9}, limits: {a.io/x: 3}}"),
              List.of(
                  "{requests: {a.io/x: 3}, limits: {a.io/x: 2}}",
                  "{requests: {a.io/x: 1, b.io/y: 5}, limits: {a.io/x: 1, b.io/y: 4}}")),
          "batchjobs/spec/resources/requests",
          names(),
          "batchjobs/spec/resources/limits",
          names(),
          "batchnodes/spec/resources",
          names(),
          "batchqueues/spec/max",
          names(),
          "batchqueues/spec/min",
          names(),
          "batchqueues/spec",
          new Samples(
              List.of(
                  "{}",
                  "{min: {a.io/x: 1}}",
                  "{max: {a.io/x: 1}}",
                  "{min: {a.io/x: 2}, max: {a.io/x: 2}}",
                  "{min: {a.io/x: 2, b.io/y: 9}, max: {a.io/x: 3}}"),
              List.of(
                  "{min: {a.io/x: 3}, max: {a.io/x: 2}}",
                  "{min: {a.io/x: 1, b.io/y: 5}, max: {a.io/x: 1, b.io/y: 4}}")),
          "batchqueues/spec/namespaces",
          new Samples(
              List.of("[]", "[team-a]", "[a, b-2, '0x']"),
              List.of("[Team-A]", "[-a]", "['a.b']", "['" + "a".repeat(64) + "']", "['']")),
          "batchjobs/spec/after",
          new Samples(
              List.of("[]", "[preprocess-41]", "[a.b-c, x]"),
              List.of("[Pre_Process]", "[-a]", "['a..b']", "['" + "a".repeat(254) + "']")),
          "batchjobs/spec/locks",
          new Samples(
              List.of("[]", "[subject/ernie]", "[license, a/b/c_d.e]"),
              List.of(
                  "['subject//ernie']", "['/a']", "['a/']", "['']", "['" + "a".repeat(254) + "']")),
          "batchjobs/spec/nodeSelector",
          new Samples(
              List.of(
                  "{}",
                  "{disk: ssd}",
                  "{kubernetes.io/os: linux, spare: ''}",
                  "{a.b-c.io/Lic_1.x: V-2.b_c}",
                  "{" + "k".repeat(63) + ": " + "v".repeat(63) + "}"),
              List.of(
                  "{-disk: ssd}",
                  "{'/disk': ssd}",
                  "{'a/b/c': x}",
                  "{Example.com/x: y}",
                  "{disk: 'fast ssd'}",
                  "{disk: -ssd}",
                  "{" + "k".repeat(64) + ": v}",
                  "{'" + "p".repeat(254) + "/k': v}")),
          "batchqueues/spec/nodeSelector",
          new Samples(
              List.of("{}", "{pool: gpu}", "{example.com/site: lab-2, kubernetes.io/os: linux}"),
              List.of("{-pool: gpu}", "{pool: 'gpu a'}", "{'a/b/c': x}")));

  /**
   * Transition rules (they read {@code oldSelf}): each sample is a pair, the stored object and the
   * update, as an API server evaluates them on an update.
   */
  private record Transition(String old, String updated) {}

  private static final String ADMITTED =
      "{spec: {template: {}, resources: {requests: {a.io/x: 2}}, locks: [k], group: g},"
          + " status: {phase: Admitted}}";

  private static final Map<String, List<Transition>> GOOD_TRANSITIONS =
      Map.of(
          "batchjobs/",
          List.of(
              new Transition("{spec: {template: {}}}", "{spec: {template: {}, type: t}}"),
              new Transition(
                  "{spec: {template: {}, resources: {requests: {a.io/x: 2}}}, status: {phase:"
                      + " Queued}}",
                  "{spec: {template: {}, resources: {requests: {a.io/x: 0}}}, status: {phase:"
                      + " Queued}}"),
              new Transition(
                  "{spec: {template: {}, after: [a]}, status: {phase: Rejected}}",
                  "{spec: {template: {}}, status: {phase: Rejected}}"),
              new Transition(
                  ADMITTED,
                  "{spec: {template: {spec: {x: 1}}, resources: {requests: {a.io/x: 2}}, locks: [k],"
                      + " group: g}, status: {phase: Admitted}}"),
              new Transition(ADMITTED, ADMITTED.replace("Admitted", "Running")),
              // Suspending an admitted job is accepted (it changes nothing).
              new Transition(ADMITTED, ADMITTED.replace("group: g", "group: g, suspend: true")),
              new Transition(
                  "{spec: {template: {}, nodeSelector: {disk: ssd}}, status: {phase: Queued}}",
                  "{spec: {template: {}, nodeSelector: {disk: hdd}}, status: {phase: Queued}}"),
              new Transition(
                  "{spec: {template: {}, replicas: 4}, status: {phase: Queued}}",
                  "{spec: {template: {}, replicas: 2}, status: {phase: Queued}}")));

  private static final Map<String, List<Transition>> BAD_TRANSITIONS =
      Map.of(
          "batchjobs/",
          List.of(
              new Transition(ADMITTED, ADMITTED.replace("a.io/x: 2", "a.io/x: 0")),
              new Transition(ADMITTED, ADMITTED.replace("locks: [k], ", "")),
              new Transition(ADMITTED, ADMITTED.replace("group: g", "group: h")),
              new Transition(
                  ADMITTED.replace("Admitted", "Succeeded"),
                  ADMITTED
                      .replace("Admitted", "Succeeded")
                      .replace("group: g", "group: g, type: t")),
              new Transition(
                  ADMITTED.replace("Admitted", "Failed"),
                  ADMITTED
                      .replace("Admitted", "Failed")
                      .replace("group: g", "group: g, after: [x]")),
              new Transition(
                  ADMITTED.replace("Admitted", "Running"),
                  ADMITTED
                      .replace("Admitted", "Running")
                      .replace("group: g", "group: g, origin: o")),
              new Transition(
                  ADMITTED, ADMITTED.replace("group: g", "group: g, nodeSelector: {a: b}")),
              new Transition(
                  ADMITTED.replace("group: g", "group: g, nodeSelector: {a: b}"),
                  ADMITTED.replace("group: g", "group: g, nodeSelector: {a: c}")),
              // A gang admitted whole keeps its replica count: what it holds names each replica.
              new Transition(ADMITTED, ADMITTED.replace("group: g", "group: g, replicas: 3")),
              new Transition(
                  ADMITTED.replace("group: g", "group: g, replicas: 3"),
                  ADMITTED.replace("group: g", "group: g, replicas: 2"))));

  /** Rule locations and their samples, as pairs (more than Map.of takes). */
  private static Map<String, Samples> samples(Object... pairs) {
    Map<String, Samples> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], (Samples) pairs[i + 1]);
    }
    return Map.copyOf(map);
  }

  private static Samples names() {
    return new Samples(
        List.of(
            "{}",
            "{example.com/cfd-cores: 4}",
            "{octomy.io/cpu-milli: 2000, banter.io/hashes-per-second: 500000}"),
        List.of(
            "{cfd-cores: 4}",
            "{example/cores: 1}",
            "{example.com/: 1}",
            "{Example.com/x: 1}",
            "{example.com/-x: 1}"));
  }

  static Stream<String> crds() {
    return Stream.of("batchjobs", "batchnodes", "batchjobprofiles", "batchqueues");
  }

  private static List<CelRules.Rule> rulesOf(String crd) {
    JsonNode schema =
        CrdFiles.parse(CrdFiles.generated(crd + ".batch.octomy.io"))
            .at("/spec/versions/0/schema/openAPIV3Schema");
    return CelRules.rulesOf(schema);
  }

  @ParameterizedTest
  @MethodSource("crds")
  void everyRuleCompilesAndHoldsOnGoodSamplesAndFailsOnBadOnes(String crd) throws Exception {
    for (CelRules.Rule rule : rulesOf(crd)) {
      String where = crd + rule.path();
      if (CelRules.usesOldSelf(rule.expression())) {
        checkTransitions(where, rule);
        continue;
      }
      Samples samples = SAMPLES.get(where);
      assertThat(samples)
          .as("no samples for the rule at %s; add good and bad ones to this test", where)
          .isNotNull();
      CEL.program(rule.expression()); // compiles, or fails the test with the compiler's message
      assertThat(rule.message()).as("rule at %s has a message", where).isNotBlank();
      for (String good : samples.good()) {
        assertThat(CEL.holds(rule.expression(), CrdFiles.YAML.readTree(good)))
            .as("%s should accept %s", where, good)
            .isTrue();
      }
      for (String bad : samples.bad()) {
        assertThat(CEL.holds(rule.expression(), CrdFiles.YAML.readTree(bad)))
            .as("%s should reject %s", where, bad)
            .isFalse();
      }
    }
  }

  private static void checkTransitions(String where, CelRules.Rule rule) throws Exception {
    assertThat(GOOD_TRANSITIONS.get(where))
        .as("no transitions for the rule at %s; add good and bad ones to this test", where)
        .isNotNull();
    CEL.program(rule.expression());
    for (Transition t : GOOD_TRANSITIONS.get(where)) {
      assertThat(
              CEL.evaluate(
                  rule.expression(),
                  CrdFiles.YAML.readTree(t.updated()),
                  CrdFiles.YAML.readTree(t.old())))
          .as("%s should accept %s", where, t)
          .isEqualTo(true);
    }
    for (Transition t : BAD_TRANSITIONS.get(where)) {
      assertThat(
              CEL.evaluate(
                  rule.expression(),
                  CrdFiles.YAML.readTree(t.updated()),
                  CrdFiles.YAML.readTree(t.old())))
          .as("%s should refuse %s", where, t)
          .isEqualTo(false);
    }
  }

  @Test
  void theRulesWeRelyOnArePresent() {
    List<String> where = new ArrayList<>();
    crds().forEach(crd -> rulesOf(crd).forEach(r -> where.add(crd + r.path())));
    assertThat(where).containsAll(SAMPLES.keySet()).containsAll(GOOD_TRANSITIONS.keySet());
  }

  /** The CEL rule and the Java validator must agree on what a resource name is. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "example.com/cfd-cores",
        "cfd-cores",
        "octomy.io/cpu-milli",
        "a.b/c",
        "a/b",
        "A.com/x",
        "example.com/x.y_z-1",
        "example.com/_x",
        "example.com/x_",
        "sub.example.com/X9",
        "example..com/x",
        "example.com/a/b"
      })
  void celAndJavaAgreeOnResourceNames(String name) throws Exception {
    CelRules.Rule rule =
        rulesOf("batchjobs").stream()
            .filter(r -> r.path().equals("/spec/resources/requests"))
            .findFirst()
            .orElseThrow();
    boolean cel = CEL.holds(rule.expression(), CrdFiles.YAML.createObjectNode().put(name, 1));
    assertThat(cel).as(name).isEqualTo(ResourceNames.isValid(name));
  }

  /** cel-java as it comes, with its own matches(): the oracle for the one that keeps patterns. */
  private static final Cel STOCK =
      CelFactory.standardCelBuilder()
          .setOptions(
              CelOptions.current()
                  .enableHeterogeneousNumericComparisons(true)
                  .comprehensionMaxIterations(100_000)
                  .build())
          .addVar("self", SimpleType.DYN)
          .build();

  private static String stock(String rule, String self) {
    try {
      return String.valueOf(
          STOCK.createProgram(STOCK.compile(rule).getAst()).eval(Map.of("self", self)));
    } catch (Exception e) {
      return "error";
    }
  }

  private static String kept(String rule, String self) {
    try {
      return String.valueOf(CEL.evaluate(rule, JsonNodeFactory.instance.textNode(self), null));
    } catch (CelEvaluationException e) {
      return "error";
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "self.matches('^[a-z]+$')",
        "self.matches('b')",
        "matches(self, '^a.c$')",
        "self.matches('[')",
        "self.matches('(x*)*y')",
        "self.matches('')"
      })
  void matchesAnswersAsCelJavaDoesEveryTime(String rule) {
    for (String self : List.of("abc", "ABC", "xxb", "", "a\nc", "axc", "[", "xxxy")) {
      for (int time = 0; time < 2; time++) { // the second time from the kept pattern
        assertThat(kept(rule, self))
            .as("%s on %s, time %d", rule, self, time)
            .isEqualTo(stock(rule, self));
      }
    }
  }
}
