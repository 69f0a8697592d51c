package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The look at an object's committed text before a field selector reads it ({@link
 * FieldSelectors#mayMatchText}) never turns away an object the selector matches, whatever the field
 * holds (strings with characters JSON escapes, numbers, booleans, nothing) and whichever operators
 * the selector uses.
 */
class FieldSelectorTextPropertiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ResourceType JOBS = jobs();

  @Property(tries = 2000)
  void anObjectASelectorMatchesIsNeverTurnedAwayByItsText(
      @ForAll("objects") ObjectNode object,
      @ForAll("selectors") String others,
      @ForAll("operators") String op,
      @ForAll boolean ownValue)
      throws Exception {
    String text = JSON.writeValueAsString(object);
    // half the selectors name the object's own node, so that many match
    JsonNode node = object.at("/status/node");
    String selector =
        ownValue && node.isValueNode() ? "status.node" + op + escaped(node.asText()) : others;
    boolean matched = FieldSelectors.of(selector, JOBS, "v1alpha1").test(object);
    if (matched) {
      assertThat(FieldSelectors.mayMatchText(selector, JOBS).test(text)).as(text).isTrue();
    }
    // the property says something only about matched objects: enough of them are generated
    Statistics.label("matched").collect(matched);
    Statistics.label("matched").coverage(c -> c.check(true).percentage(p -> p >= 20));
  }

  @Example
  void anObjectWhoseTextLacksTheValueIsTurnedAway() throws Exception {
    String placed = "{\"metadata\":{\"name\":\"a\"},\"status\":{\"node\":\"ws-1\"}}";
    assertThat(FieldSelectors.mayMatchText("status.node=ws-2", JOBS).test(placed)).isFalse();
    String named = "{\"status\":{\"message\":\"ws-2 is full\",\"node\":\"ws-1\"}}";
    assertThat(FieldSelectors.mayMatchText("status.node=ws-2", JOBS).test(named)).isFalse();
    assertThat(FieldSelectors.mayMatchText("status.node==ws-1", JOBS).test(placed)).isTrue();
    // not looked for: a value that reads as an absent field, an inequality
    assertThat(FieldSelectors.mayMatchText("status.node=", JOBS).test(placed)).isTrue();
    assertThat(FieldSelectors.mayMatchText("status.node!=ws-2", JOBS).test(placed)).isTrue();
  }

  @Provide
  Arbitrary<ObjectNode> objects() {
    return Combinators.combine(names(), fieldValues())
        .as(
            (name, node) -> {
              ObjectNode o = JsonNodeFactory.instance.objectNode();
              o.putObject("metadata").put("name", name).put("namespace", "default");
              if (node != null) {
                o.putObject("status").set("node", node);
              }
              return o;
            });
  }

  @Provide
  Arbitrary<String> operators() {
    return Arbitraries.of("=", "==");
  }

  @Provide
  Arbitrary<String> selectors() {
    Arbitrary<String> term =
        Combinators.combine(
                Arbitraries.of("status.node", "metadata.name", "metadata.namespace"),
                Arbitraries.of("=", "==", "!="),
                values().map(FieldSelectorTextPropertiesTest::escaped))
            .as((field, op, value) -> field + op + value);
    return term.list().ofMinSize(1).ofMaxSize(3).map(terms -> String.join(",", terms));
  }

  private static Arbitrary<String> names() {
    return Arbitraries.of("a", "ws-1", "7", "true", "default");
  }

  /** What a field may hold: a string, an integer, a boolean, or nothing. */
  private static Arbitrary<JsonNode> fieldValues() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return Arbitraries.oneOf(
        values().map(f::textNode),
        Arbitraries.integers().between(-3, 12).map(f::numberNode),
        Arbitraries.of(true, false).map(f::booleanNode),
        Arbitraries.just(null));
  }

  private static Arbitrary<String> values() {
    return Arbitraries.oneOf(
        Arbitraries.of("", "a", "ws-1", "ws-2", "7", "-3", "true", "false", "default"),
        Arbitraries.strings().withChars("aw-1.:/\"\\é \u0001,=").ofMaxLength(5));
  }

  /** A value as a selector writes it: backslash, comma and equals escaped. */
  private static String escaped(String value) {
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=");
  }

  private static ResourceType jobs() {
    try {
      return ResourceRegistry.fromCrd(
          TableRendererTest.YAML.readTree(
              Files.readString(Path.of("crds/batchjobs.batch.octomy.io.yaml"))));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
