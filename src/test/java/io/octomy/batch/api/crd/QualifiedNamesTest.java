package io.octomy.batch.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.octomy.batch.apiserver.CelRules;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Resource names are Kubernetes qualified names ({@code IsQualifiedName} of k8s.io/apimachinery)
 * with a required, dotted prefix whose labels are at most 63 characters. Checked on the test cases
 * Kubernetes itself uses for {@code IsQualifiedName} and {@code IsDNS1123Subdomain}, plus the
 * bounds at their edges, through both the CRD's CEL rule (as the generated CRD has it) and the Java
 * validator.
 */
class QualifiedNamesTest {

  private static final CelRules CEL = new CelRules();

  /** One name, and whether Kubernetes' IsQualifiedName accepts it. */
  record Case(String name, boolean kubernetesAccepts) {
    @Override
    public String toString() {
      return (name.length() > 60 ? name.substring(0, 57) + "..." : name)
          + " (len "
          + name.length()
          + ")";
    }
  }

  /** The cases of Kubernetes' TestIsQualifiedName. */
  static Stream<Case> kubernetesQualifiedNames() {
    List<Case> cases = new ArrayList<>();
    for (String ok :
        List.of(
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "1234",
            "simple/simple",
            "now-with-dashes/simple",
            "now-with-dashes/now-with-dashes",
            "now.with.dots/simple",
            "now-with.dashes-and.dots/simple",
            "1-num.2-num/3-num",
            "1234/5678",
            "1.2.3.4/5678",
            "Uppercase_Is_OK_123",
            "example.com/Uppercase_Is_OK_123",
            "requests.storage-foo",
            "a".repeat(63),
            "a".repeat(253) + "/" + "b".repeat(63))) {
      cases.add(new Case(ok, true));
    }
    for (String bad :
        List.of(
            "nospecialchars%^=@",
            "cantendwithadash-",
            "-cantstartwithadash-",
            "only/one/slash",
            "Example.com/abc",
            "example_com/abc",
            "example.com/",
            "/simple",
            "a".repeat(64),
            "a".repeat(254) + "/abc")) {
      cases.add(new Case(bad, false));
    }
    return cases.stream();
  }

  /**
   * The cases of Kubernetes' TestIsDNS1123Subdomain, each used as the prefix of {@code PREFIX/x}:
   * IsQualifiedName accepts that exactly when the prefix is a DNS-1123 subdomain.
   */
  static Stream<Case> kubernetesSubdomainsAsPrefixes() {
    List<Case> cases = new ArrayList<>();
    for (String ok :
        List.of(
            "a",
            "ab",
            "abc",
            "a1",
            "a-1",
            "a--1--2--b",
            "0",
            "01",
            "012",
            "1a",
            "1-a",
            "1--a--b--2",
            "a.a",
            "ab.a",
            "abc.a",
            "a1.a",
            "a-1.a",
            "a--1--2--b.a",
            "a.1",
            "ab.1",
            "abc.1",
            "a1.1",
            "a-1.1",
            "a--1--2--b.1",
            "0.a",
            "01.a",
            "012.a",
            "1a.a",
            "1-a.a",
            "0.1",
            "01.1",
            "012.1",
            "1a.1",
            "1-a.1",
            "1--a--b--2.1",
            "a.b.c.d.e",
            "aa.bb.cc.dd.ee",
            "1.2.3.4.5",
            "11.22.33.44.55",
            "a".repeat(253))) {
      cases.add(new Case(ok + "/x", true));
    }
    for (String bad :
        List.of(
            "",
            "A",
            "ABC",
            "aBc",
            "A1",
            "A-1",
            "1-A",
            "-",
            "a-",
            "-a",
            "1-",
            "-1",
            "_",
            "a_",
            "_a",
            "a_b",
            "1_",
            "_1",
            "1_2",
            ".",
            "a.",
            ".a",
            "a..b",
            "1.",
            ".1",
            "1..2",
            " ",
            "a ",
            " a",
            "a b",
            "1 ",
            " 1",
            "1 2",
            "A.a",
            "aB.a",
            "ab.A",
            "A1.a",
            "a1.A",
            "A.1",
            "aB.1",
            "A1.1",
            "1A.1",
            "0.A",
            "01.A",
            "012.A",
            "1A.a",
            "1a.A",
            "A.B.C.D.E",
            "AA.BB.CC.DD.EE",
            "a.B.c.d.e",
            "aa.bB.cc.dd.ee",
            "a@b",
            "a,b",
            "a;b",
            "a:b",
            "a%b",
            "a?b",
            "a$b",
            "a".repeat(254))) {
      cases.add(new Case(bad + "/x", false));
    }
    return cases.stream();
  }

  /** The bounds at their edges, where Kubernetes' cases do not reach. */
  static Stream<Case> edges() {
    String label63 = "a".repeat(63);
    String prefix253 = label63 + "." + label63 + "." + label63 + "." + "d".repeat(61);
    return Stream.of(
        new Case(label63 + ".com/x", true),
        new Case("a".repeat(64) + ".com/x", true), // Kubernetes does not bound labels; DNS does
        new Case(prefix253 + "/x", true),
        new Case(prefix253 + "d/x", false),
        new Case("example.com/" + "n".repeat(63), true),
        new Case("example.com/" + "n".repeat(64), false),
        new Case(prefix253 + "/" + "n".repeat(63), true),
        new Case("example.com/a.b_c-D", true),
        new Case("example.com/_x", false));
  }

  static Stream<Case> all() {
    return Stream.of(kubernetesQualifiedNames(), kubernetesSubdomainsAsPrefixes(), edges())
        .flatMap(s -> s);
  }

  /**
   * Ours = IsQualifiedName, plus: a prefix is required, it has a dot, and each of its labels is at
   * most 63 characters.
   */
  private static boolean expected(Case c) {
    int slash = c.name().indexOf('/');
    if (!c.kubernetesAccepts() || slash < 0) {
      return false;
    }
    String prefix = c.name().substring(0, slash);
    return prefix.contains(".") && Stream.of(prefix.split("\\.")).allMatch(l -> l.length() <= 63);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("all")
  void theJavaValidatorAndTheCrdRuleAgreeWithTheRule(Case c) throws Exception {
    boolean want = expected(c);
    assertThat(ResourceNames.isValid(c.name())).as("Java: %s", c).isEqualTo(want);
    assertThat(ResourceNames.problem(c.name()) == null).as("problem(): %s", c).isEqualTo(want);
    for (String crd : List.of("batchjobs", "batchnodes")) {
      for (CelRules.Rule rule : nameRules(crd)) {
        JsonNode map = CrdFiles.YAML.createObjectNode().put(c.name(), 1);
        assertThat(CEL.holds(rule.expression(), map))
            .as("CEL rule at %s%s: %s", crd, rule.path(), c)
            .isEqualTo(want);
      }
    }
  }

  /** Refused names of every kind, each also too long to be shown whole, and long numbers. */
  static Stream<String> refusedNames() {
    String long80 = "x".repeat(90);
    return Stream.of(
        "gpu-slots",
        long80,
        "a/b/c",
        long80 + "/b/c",
        "a".repeat(254) + ".com/x",
        "a".repeat(1_234) + ".com/x",
        "a".repeat(100_000) + ".com/x",
        "a".repeat(1_234_567) + ".com/x",
        "example/cores",
        long80 + "/cores",
        "ex.ample." + "a".repeat(64) + "/x",
        "Example.com/x",
        "example.com/" + "n".repeat(64),
        "example.com/" + "n".repeat(12_345),
        "example.com/_x",
        "example.com/" + long80.replace('x', '_'),
        "example.com/",
        "/x",
        "a..b/x",
        "ñame.com/x",
        "a b");
  }

  @ParameterizedTest(name = "{index}")
  @MethodSource("refusedNames")
  void theCrdRuleRefusesANameInTheJavaValidatorsWords(String name) throws Exception {
    assertThat(ResourceNames.problem(name)).isNotNull();
    for (String crd : List.of("batchjobs", "batchnodes")) {
      for (CelRules.Rule rule : nameRules(crd)) {
        JsonNode map = CrdFiles.YAML.createObjectNode().put(name, 1);
        assertThat(CEL.evaluate(rule.messageExpression(), map, null))
            .as("message of the rule at %s%s", crd, rule.path())
            .isEqualTo(ResourceNames.problem(name));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"batchjobs", "batchnodes"})
  void aNameWithoutADomainIsQuotedAndOfSeveralTheLeastIsNamed(String crd) throws Exception {
    for (CelRules.Rule rule : nameRules(crd)) {
      JsonNode one = CrdFiles.YAML.readTree("{gpu-slots: 16}");
      JsonNode several = CrdFiles.YAML.readTree("{zz: 1, example.com/ok: 2, gpu-slots: 3}");
      for (JsonNode map : List.of(one, several)) {
        assertThat(CEL.evaluate(rule.messageExpression(), map, null))
            .as("%s%s on %s", crd, rule.path(), map)
            .isEqualTo(
                "resource name 'gpu-slots' has no domain; write it as example.com/gpu-slots");
      }
    }
  }

  private static List<CelRules.Rule> nameRules(String crd) {
    JsonNode schema =
        CrdFiles.parse(CrdFiles.generated(crd + ".batch.octomy.io"))
            .at("/spec/versions/0/schema/openAPIV3Schema");
    List<CelRules.Rule> rules =
        CelRules.rulesOf(schema).stream()
            .filter(r -> r.expression().equals(ResourceNames.CEL_EVERY_KEY))
            .toList();
    assertThat(rules).as("resource name rules in %s", crd).isNotEmpty();
    assertThat(rules)
        .as("resource name rules in %s say which name they refuse", crd)
        .allSatisfy(r -> assertThat(r.messageExpression()).isNotBlank());
    return rules;
  }
}
