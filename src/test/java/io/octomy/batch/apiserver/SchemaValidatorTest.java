package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Schema and CEL admission against the sample CRD's openAPIV3Schema. */
class SchemaValidatorTest {

  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static JsonNode schema;
  static final CelRules CEL = new CelRules();
  static final SchemaValidator VALIDATOR = new SchemaValidator(CEL);

  @BeforeAll
  static void load() throws Exception {
    JsonNode crd = YAML.readTree(Files.readString(TestCrds.sampleCrd()));
    schema = ResourceRegistry.fromCrd(crd).schemas().get("v1alpha1");
  }

  private static ObjectNode sample(String spec) throws Exception {
    return (ObjectNode)
        YAML.readTree(
            "apiVersion: test.octomy.io/v1alpha1\nkind: Sample\n"
                + "metadata: {name: x, namespace: default}\nspec: "
                + spec);
  }

  private static List<String> errors(String spec) throws Exception {
    return VALIDATOR.validate(schema, sample(spec), null).stream()
        .map(c -> c.field() + ": " + c.message())
        .toList();
  }

  @Test
  void aGoodObjectPassesAndGetsDefaultsAndLosesUnknownFields() throws Exception {
    ObjectNode o = sample("{size: 3, unknown: 1}");
    assertThat(VALIDATOR.validate(schema, o, null)).isEmpty();
    assertThat(o.at("/spec/mode").asText()).isEqualTo("Fast");
    assertThat(o.at("/spec/requests").isObject()).isTrue();
    assertThat(o.at("/spec").has("unknown")).isFalse();
    assertThat(o.at("/metadata/name").asText()).isEqualTo("x");
  }

  /** Quotes, backslashes and control characters in a refused value print as Go's %q prints them. */
  @Test
  void aRefusedValueIsQuotedAsTheRealServerQuotesIt() throws Exception {
    JsonNode noNul =
        YAML.readTree("{type: object, properties: {s: {type: string, pattern: '^[^\\x00]*$'}}}");
    ObjectNode o = (ObjectNode) new ObjectMapper().readTree("{\"s\":\"a\\u0000\\\"b\\\\\\n\"}");
    assertThat(VALIDATOR.validate(noNul, o, null))
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.message())
                    .isEqualTo(
                        "Invalid value: \"a\\x00\\\"b\\\\\\n\": s in body should match '^[^\\x00]*$'"));
  }

  /** The real server's note after a wrong type, enum value, missing field or size. */
  private static final String RULES_NOT_CHECKED =
      "<nil>: Invalid value: null: some validation rules were not checked because the object was"
          + " invalid; correct the existing errors to complete validation";

  @Test
  void typesEnumsRequiredAndBoundsSkipTheRulesAsTheRealServerDoes() throws Exception {
    assertThat(errors("{size: \"3\"}"))
        .containsExactly(
            "spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
            RULES_NOT_CHECKED);
    assertThat(errors("{size: 3, mode: Turbo}"))
        .containsExactly(
            "spec.mode: Unsupported value: \"Turbo\": supported values: \"Fast\", \"Slow\"",
            RULES_NOT_CHECKED);
    assertThat(errors("{mode: Fast}"))
        .containsExactly("spec.size: Required value", RULES_NOT_CHECKED);
    assertThat(errors("{size: 101}"))
        .containsExactly(
            "spec.size: Invalid value: 101: spec.size in body should be less than or equal to 100");
    assertThat(errors("{size: -1}"))
        .containsExactly(
            "spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0");
    assertThat(errors("{size: 1, requests: {a/b: -2}}"))
        .containsExactly(
            "spec.requests.a/b: Invalid value: -2: spec.requests.a/b in body should be greater than or equal to 0");
  }

  @Test
  void lengthsCountsAndPatterns() throws Exception {
    assertThat(errors("{size: 1, owner: abcdefghijk}"))
        .containsExactly("spec.owner: Too long: may not be more than 10 bytes", RULES_NOT_CHECKED);
    assertThat(errors("{size: 1, owner: Bob}"))
        .containsExactly(
            "spec.owner: Invalid value: \"Bob\": spec.owner in body should match '^[a-z]+$'");
    assertThat(errors("{size: 1, tags: [a, b, c, d]}"))
        .containsExactly("spec.tags: Too many: 4: must have at most 3 items", RULES_NOT_CHECKED);
    assertThat(errors("{size: 1, requests: {a/b: 1, a/c: 1, a/d: 1, a/e: 1, a/f: 1}}"))
        .containsExactly(
            "spec.requests: Too many: 5: must have at most 4 items", RULES_NOT_CHECKED);
  }

  @Test
  void celRulesWithMessagesAndFieldPaths() throws Exception {
    assertThat(errors("{size: 30, limit: 5}"))
        .containsExactly("spec: Invalid value: \"object\": size must not exceed limit");
    assertThat(errors("{size: 3, limit: 5}")).isEmpty();
    assertThat(errors("{size: 3, requests: {widgets: 2}}"))
        .containsExactly(
            "spec.requests: Invalid value: \"object\": resource names need a domain, like example.com/widgets");
  }

  @Test
  void anUpdateIsNotHeldToRulesOnValuesItLeavesUnchanged() throws Exception {
    // stored while the rule did not hold it (an older CRD): the real server ratchets such a value
    ObjectNode stored = sample("{size: 30, limit: 5}");
    assertThat(VALIDATOR.validate(schema, stored, null)).hasSize(1); // defaults filled in
    ObjectNode relabelled = sample("{size: 30, limit: 5}");
    relabelled.withObjectProperty("metadata").putObject("labels").put("team", "a");
    assertThat(VALIDATOR.validate(schema, relabelled, stored)).isEmpty();
    assertThat(VALIDATOR.validate(schema, sample("{size: 31, limit: 5}"), stored))
        .extracting(c -> c.field() + ": " + c.message())
        .containsExactly("spec: Invalid value: \"object\": size must not exceed limit");
    assertThat(VALIDATOR.validate(schema, sample("{size: 30, limit: 5}"), null))
        .extracting(c -> c.field() + ": " + c.message())
        .containsExactly("spec: Invalid value: \"object\": size must not exceed limit");
  }

  @Test
  void transitionRulesUseOldSelfOnlyOnUpdate() throws Exception {
    JsonNode withTransition =
        YAML.readTree(
            """
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      mode: {type: string}
                    x-kubernetes-validations:
                      - rule: "self.mode == oldSelf.mode"
                        messageExpression: "'mode is immutable, was ' + oldSelf.mode"
                """);
    ObjectNode created = sample("{mode: Fast}");
    assertThat(VALIDATOR.validate(withTransition, created, null)).isEmpty();
    List<ApiException.Cause> causes =
        VALIDATOR.validate(withTransition, sample("{mode: Slow}"), created);
    assertThat(causes)
        .extracting(ApiException.Cause::message)
        .containsExactly("Invalid value: \"object\": mode is immutable, was Fast");
  }

  @Test
  void aMessageExpressionIsTrimmedAndOneOfManyLinesOrTooLongGivesTheStaticMessage()
      throws Exception {
    JsonNode quoting =
        YAML.readTree(
            """
                type: object
                properties:
                  spec:
                    type: object
                    additionalProperties: {type: integer}
                    x-kubernetes-validations:
                      - rule: "self.all(k, k.contains('/'))"
                        message: names have a slash
                        messageExpression: "self.filter(k, !k.contains('/')).map(k, ' no slash in ' + k + ' ')[0]"
                """);
    assertThat(VALIDATOR.validate(quoting, sample("{gpu-slots: 1}"), null))
        .extracting(ApiException.Cause::message)
        .containsExactly("Invalid value: \"object\": no slash in gpu-slots");
    for (String key : List.of("gpu\nslots", "x".repeat(SchemaValidator.MAX_MESSAGE_BYTES))) {
      ObjectNode o = sample("{}");
      o.withObjectProperty("spec").put(key, 1);
      assertThat(VALIDATOR.validate(quoting, o, null))
          .as(key.substring(0, 5))
          .extracting(ApiException.Cause::message)
          .containsExactly("Invalid value: \"object\": names have a slash");
    }
  }

  @Test
  void brokenRulesAreRefusedWhenTheCrdIsInstalled() throws Exception {
    JsonNode broken = YAML.readTree("type: object\nx-kubernetes-validations: [{rule: 'self.a +'}]");
    assertThatThrownBy(() -> CEL.compileAll(broken))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid x-kubernetes-validations rule self.a +");
  }

  @Test
  void theInvalidStatusReadsLikeARealServers() throws Exception {
    ResourceType type =
        ResourceRegistry.fromCrd(YAML.readTree(Files.readString(TestCrds.sampleCrd())));
    ApiException e =
        ApiException.invalid(
            type, "bad", VALIDATOR.validate(schema, sample("{size: 30, limit: 5}"), null));
    assertThat(e.code()).isEqualTo(422);
    ObjectNode status = e.toStatus();
    assertThat(status.path("reason").asText()).isEqualTo("Invalid");
    assertThat(status.path("message").asText())
        .isEqualTo(
            "Sample.test.octomy.io \"bad\" is invalid: spec: Invalid value: \"object\": size must not exceed limit");
    assertThat(status.at("/details/causes/0/field").asText()).isEqualTo("spec");
  }

  /** Bounds are worded as the real server words them: Go's %v of a float64. */
  @Test
  void boundsAreWordedAsGoPrintsThem() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    assertThat(SchemaConstraints.goNumber(f.numberNode(1.0))).isEqualTo("1");
    assertThat(SchemaConstraints.goNumber(f.numberNode(1.5))).isEqualTo("1.5");
    assertThat(SchemaConstraints.goNumber(f.numberNode(5))).isEqualTo("5");
    assertThat(SchemaConstraints.goNumber(f.numberNode(9007199254740991.0)))
        .isEqualTo("9007199254740991");
  }
}
