package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code fieldValidation} against the real server's answers: every expected message and warning
 * below is what kube-apiserver 1.34.4 answered for the same request, with the product's BatchJob
 * CRD installed.
 */
class FieldValidationTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final FieldValidation FIELDS = new FieldValidation(JSON, YAML);
  private static final ResourceRegistry REGISTRY = new ResourceRegistry();
  private static final ResourceType BATCH_JOBS = batchJobs();
  private static final ResourceType CONFIG_MAPS =
      REGISTRY.find("", "v1", "configmaps").orElseThrow();
  private static final ResourceType EVENTS = REGISTRY.find("", "v1", "events").orElseThrow();

  private static final String JOB_BODY =
      "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"generateName\":\"u-\","
          + "\"labels\":{\"a\":\"b\"},\"bogusmeta\":1},\"spec\":{\"zeta\":1,\"priority\":5,\"type\":\"x\","
          + "\"type\":\"y\",\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\","
          + "\"foo\":1}]}}},\"extra\":{\"a\":1}}";
  private static final String JOB_PROBLEMS =
      "duplicate field \"spec.type\", unknown field \"metadata.bogusmeta\", unknown field \"extra\","
          + " unknown field \"spec.priority\", unknown field \"spec.zeta\"";
  private static final String CONFIG_MAP_BODY =
      "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\",\"zz\":1},"
          + "\"data\":{\"a\":\"b\"},\"foo\":1,\"bar\":{\"x\":1},\"data\":{\"c\":\"d\"}}";

  /**
   * A create or update: {@code expected} is the 400 message under Strict, or the warnings
   * otherwise.
   */
  record Decoded(
      String name,
      ResourceType type,
      String method,
      String directive,
      String contentType,
      String body,
      String refusal,
      List<String> warnings) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Decoded> decoded() {
    return Stream.of(
        new Decoded(
            "custom resource, Strict: duplicates, then metadata, then the rest sorted",
            BATCH_JOBS,
            "POST",
            "Strict",
            "application/json",
            JOB_BODY,
            "BatchJob in version \"v1alpha1\" cannot be handled as a BatchJob: strict decoding"
                + " error: "
                + JOB_PROBLEMS,
            List.of()),
        new Decoded(
            "custom resource, no directive: Warn, a warning each",
            BATCH_JOBS,
            "POST",
            null,
            "application/json",
            JOB_BODY,
            null,
            List.of(JOB_PROBLEMS.split(", "))),
        new Decoded(
            "custom resource, Ignore: nothing said",
            BATCH_JOBS,
            "PUT",
            "Ignore",
            "application/json",
            JOB_BODY,
            null,
            List.of()),
        new Decoded(
            "custom resource, metadata sorted and a duplicate name",
            BATCH_JOBS,
            "POST",
            "Strict",
            "application/json",
            "{\"metadata\":{\"name\":\"m1\",\"zz\":1,\"aa\":2,\"name\":\"m1\"},"
                + "\"spec\":{\"b\":1,\"a\":{\"x\":1},\"type\":\"x\"}}",
            "BatchJob in version \"v1alpha1\" cannot be handled as a BatchJob: strict decoding"
                + " error: duplicate field \"metadata.name\", unknown field \"metadata.aa\","
                + " unknown field \"metadata.zz\", unknown field \"spec.a\", unknown field"
                + " \"spec.b\"",
            List.of()),
        new Decoded(
            "custom resource as YAML: go-yaml's words for the duplicate",
            BATCH_JOBS,
            "POST",
            "Strict",
            "application/yaml",
            "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchJob\nmetadata: {name: y1}\nspec:\n"
                + "  type: a\n  type: b\n  prio: 1\n"
                + "  template: {spec: {containers: [{name: main, image: busybox}]}}\n",
            "BatchJob in version \"v1alpha1\" cannot be handled as a BatchJob: strict decoding"
                + " error: yaml: unmarshal errors:\n  line 6: key \"type\" already set in map,"
                + " unknown field \"spec.prio\"",
            List.of()),
        new Decoded(
            "built-in kind, Strict: in the body's order",
            CONFIG_MAPS,
            "POST",
            "Strict",
            "application/json",
            CONFIG_MAP_BODY,
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error:"
                + " unknown field \"metadata.zz\", unknown field \"foo\", unknown field \"bar\","
                + " duplicate field \"data\"",
            List.of()),
        new Decoded(
            "built-in kind, Warn",
            CONFIG_MAPS,
            "PUT",
            "Warn",
            "application/json",
            CONFIG_MAP_BODY,
            null,
            List.of(
                "unknown field \"metadata.zz\"",
                "unknown field \"foo\"",
                "unknown field \"bar\"",
                "duplicate field \"data\"")),
        new Decoded(
            "built-in kind, nested",
            EVENTS,
            "POST",
            "Strict",
            "application/json",
            "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e1\"},"
                + "\"involvedObject\":{\"kind\":\"X\",\"name\":\"y\",\"foo\":2},\"reason\":\"R\","
                + "\"message\":\"m\",\"count\":1,\"zork\":3}",
            "Event in version \"v1\" cannot be handled as a Event: strict decoding error: unknown"
                + " field \"involvedObject.foo\", unknown field \"zork\"",
            List.of()),
        new Decoded(
            "known fields only: nothing to say",
            BATCH_JOBS,
            "POST",
            "Strict",
            "application/json",
            "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{"
                + "\"name\":\"ok\",\"labels\":{\"x\":\"y\"},\"annotations\":{\"k\":\"v\"},"
                + "\"managedFields\":[{\"manager\":\"m\",\"operation\":\"Update\",\"fieldsType\":"
                + "\"FieldsV1\",\"fieldsV1\":{\"f:spec\":{\"f:type\":{}}}}]},\"spec\":{"
                + "\"type\":\"x\",\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
                + "\"image\":\"busybox\"}]}}},\"status\":{\"phase\":\"Pending\"}}",
            null,
            List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void decoded(Decoded c) {
    ApiRequest req = request(c.method(), c.directive(), c.contentType(), c.body());
    if (c.refusal() != null) {
      assertThatThrownBy(() -> FIELDS.decoded(req, c.type(), version(c)))
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400))
          .hasMessage(c.refusal());
    } else {
      assertThat(FIELDS.decoded(req, c.type(), version(c))).isEqualTo(c.warnings());
    }
  }

  @Test
  void aPatchedObjectWithAnUnknownFieldIsRefusedOnThePatchFieldUnderStrict() {
    ObjectNode patched = object("{\"spec\":{\"type\":\"z\",\"priority\":3},\"kind\":\"BatchJob\"}");
    ApiRequest strict = request("PATCH", "Strict", Patches.MERGE_PATCH, "{}");
    String message =
        "Invalid value: \"{\\\"kind\\\":\\\"BatchJob\\\",\\\"spec\\\":{\\\"priority\\\":3,"
            + "\\\"type\\\":\\\"z\\\"}}\": strict decoding error: unknown field \"spec.priority\"";
    assertThatThrownBy(() -> FIELDS.patched(strict, BATCH_JOBS, "v1alpha1", patched))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(422);
              assertThat(e.toStatus().at("/details/causes/0/field").asText()).isEqualTo("patch");
              assertThat(e.toStatus().at("/details/causes/0/message").asText()).isEqualTo(message);
            })
        .hasMessage(" \"\" is invalid: patch: " + message);
    ApiRequest warn = request("PATCH", null, Patches.MERGE_PATCH, "{}");
    assertThat(FIELDS.patched(warn, BATCH_JOBS, "v1alpha1", patched))
        .containsExactly("unknown field \"spec.priority\"");
    ApiRequest ignore = request("PATCH", "Ignore", Patches.MERGE_PATCH, "{}");
    assertThat(FIELDS.patched(ignore, BATCH_JOBS, "v1alpha1", patched)).isEmpty();
  }

  @Test
  void serverSideApplyRefusesAnUndeclaredFieldWhateverTheDirective() {
    String body =
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
            + "\"s1\",\"namespace\":\"t1\",\"foo\":1},\"spec\":{\"zeta\":1,\"priority\":7,"
            + "\"type\":\"a\"},\"extra\":1}";
    for (String directive : new String[] {null, "Strict", "Warn", "Ignore"}) {
      assertThatThrownBy(
              () ->
                  FIELDS.applied(
                      request("PATCH", directive, Patches.APPLY_PATCH, body),
                      BATCH_JOBS,
                      "v1alpha1"))
          .isInstanceOfSatisfying(
              ApiException.class,
              e -> {
                assertThat(e.code()).isEqualTo(400);
                assertThat(e.toStatus().path("reason").asText()).isEqualTo("BadRequest");
              })
          .hasMessage(
              "failed to create typed patch object (t1/s1; batch.octomy.io/v1alpha1,"
                  + " Kind=BatchJob): .extra: field not declared in schema");
    }
    assertThatThrownBy(
            () ->
                FIELDS.applied(
                    request(
                        "PATCH",
                        null,
                        Patches.APPLY_PATCH,
                        "{\"metadata\":{\"name\":\"c1\"},\"foo\":1}"),
                    CONFIG_MAPS,
                    "v1"))
        .hasMessage(
            "failed to create typed patch object (/c1; /v1, Kind=ConfigMap): .foo: field not"
                + " declared in schema");
  }

  @Test
  void serverSideApplyDuplicatesFollowTheDirectiveInYamlWords() {
    String body =
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
            + "\"s2\",\"namespace\":\"t1\"},\"spec\":{\"type\":\"a\",\"type\":\"b\"}}";
    assertThatThrownBy(
            () ->
                FIELDS.applied(
                    request("PATCH", "Strict", Patches.APPLY_PATCH, body), BATCH_JOBS, "v1alpha1"))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400))
        .hasMessage(
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n"
                + "  line 1: key \"type\" already set in map");
    assertThat(
            FIELDS.applied(
                request("PATCH", null, Patches.APPLY_PATCH, body), BATCH_JOBS, "v1alpha1"))
        .containsExactly("line 1: key \"type\" already set in map");
    assertThat(
            FIELDS.applied(
                request("PATCH", "Ignore", Patches.APPLY_PATCH, body), BATCH_JOBS, "v1alpha1"))
        .isEmpty();
  }

  @Test
  void anUnknownDirectiveIsRefusedOnTheOptionsOfTheVerb() {
    assertThatThrownBy(
            () -> FieldValidation.directive(request("POST", "bogus", "application/json", "{}")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(422))
        .hasMessage(
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value:"
                + " \"bogus\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
    assertThat(FieldValidation.directive(request("PUT", null, "application/json", "{}")))
        .isEqualTo(FieldValidation.Directive.WARN);
  }

  @Test
  void everyServedBuiltInKindHasAModel() {
    for (ResourceType type : REGISTRY.all()) {
      if (!REGISTRY.isListedOnly(type)) {
        assertThat(FieldModels.of(type, "v1")).as(type.key()).isPresent();
      }
    }
  }

  private static String version(Decoded c) {
    return c.type().isCustom() ? "v1alpha1" : "v1";
  }

  private static ApiRequest request(
      String method, String directive, String contentType, String body) {
    Map<String, String> query = new HashMap<>();
    if (directive != null) {
      query.put("fieldValidation", directive);
    }
    return new ApiRequest(
        method, "/", query, "", contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  private static ResourceType batchJobs() {
    try {
      return ResourceRegistry.fromCrd(
          YAML.readTree(Files.readString(Path.of("crds/batchjobs.batch.octomy.io.yaml"))));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static ObjectNode object(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
