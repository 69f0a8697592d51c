package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Field managers against the real server: each expected {@code managedFields}, conflict and object
 * below is what kube-apiserver 1.34.4 answered to the same writes of the product's BatchJob (the
 * conformance session's server-side apply steps, and ordinary writes of the main resource and its
 * status).
 */
class FieldOwnershipTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String NOW = "2026-12-01T15:59:01Z";
  private static final FieldOwnership OWNERSHIP =
      new FieldOwnership(new ObjectRules(Clock.fixed(Instant.parse(NOW), ZoneOffset.UTC)), YAML);
  private static final ResourceType BATCH_JOBS = batchJobs();

  private static final String SYNC_D =
      "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
          + "\"sync-d\",\"namespace\":\"t1\",\"labels\":{\"app\":\"conf\"}},\"spec\":{\"type\":\"sync\","
          + "\"group\":\"pipeline\",\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":"
          + "[{\"name\":\"main\",\"image\":\"busybox\",\"command\":[\"sh\",\"-c\",\"echo sync\"]}]}}}}";

  /**
   * The real server answered {@code "f:spec":{".":{},...}} under the template while the CRD left
   * the template's spec undeclared (deduced: the map itself a member). The CRD now declares it (its
   * containers' launch fields are typed), and a declared object is owned field by field, without
   * {@code "."}, as {@code f:spec} at the top is.
   */
  private static final String KUBECTL_OWNS =
      "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:group\":{},\"f:template\":"
          + "{\"f:spec\":{\"f:containers\":{},\"f:restartPolicy\":{}}},\"f:type\":{}}}";

  @Test
  void theSessionsServerSideApplyStepsEndAsOnTheRealServer() {
    ObjectNode live = apply(null, "kubectl", false, SYNC_D);
    assertThat(owned(live, "kubectl")).isEqualTo(KUBECTL_OWNS);

    String nightly =
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
            + "\"sync-d\",\"labels\":{\"owner\":\"gitops\"}},\"spec\":{\"group\":\"nightly\"}}";
    assertThatThrownBy(() -> apply(live, "gitops", false, nightly))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(409);
              assertThat(e.toStatus().at("/details/causes/0/field").asText())
                  .isEqualTo(".spec.group");
            })
        .hasMessage("Apply failed with 1 conflict: conflict with \"kubectl\": .spec.group");

    String shared =
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
            + "\"sync-d\",\"labels\":{\"owner\":\"gitops\"}},\"spec\":{\"type\":\"sync\"}}";
    ObjectNode coOwned = apply(live, "gitops", false, shared);
    assertThat(owned(coOwned, "kubectl")).isEqualTo(KUBECTL_OWNS);
    assertThat(owned(coOwned, "gitops"))
        .isEqualTo("{\"f:metadata\":{\"f:labels\":{\"f:owner\":{}}},\"f:spec\":{\"f:type\":{}}}");

    ObjectNode forced =
        apply(
            coOwned,
            "gitops",
            true,
            "{\"metadata\":{\"name\":\"sync-d\",\"labels\":{\"owner\":\"gitops\"}},"
                + "\"spec\":{\"type\":\"sync\",\"group\":\"nightly\"}}");
    assertThat(owned(forced, "kubectl"))
        .isEqualTo(
            "{\"f:metadata\":{\"f:labels\":{\"f:app\":{}}},\"f:spec\":{\"f:template\":{\"f:spec\":"
                + "{\"f:containers\":{},\"f:restartPolicy\":{}}},\"f:type\":{}}}");
    assertThat(owned(forced, "gitops"))
        .isEqualTo(
            "{\"f:metadata\":{\"f:labels\":{\"f:owner\":{}}},\"f:spec\":{\"f:group\":{},"
                + "\"f:type\":{}}}");
    assertThat(forced.at("/spec/group").asText()).isEqualTo("nightly");

    assertThatThrownBy(() -> apply(forced, "kubectl", false, SYNC_D))
        .hasMessage("Apply failed with 1 conflict: conflict with \"gitops\": .spec.group");

    ObjectNode dropped = apply(forced, "gitops", false, shared);
    assertThat(dropped.at("/spec").has("group")).isFalse();
    assertThat(dropped.at("/spec/type").asText()).isEqualTo("sync");
    assertThat(dropped.at("/metadata/labels").toString())
        .isEqualTo("{\"app\":\"conf\",\"owner\":\"gitops\"}");
    assertThat(owned(dropped, "gitops"))
        .isEqualTo("{\"f:metadata\":{\"f:labels\":{\"f:owner\":{}}},\"f:spec\":{\"f:type\":{}}}");
  }

  @Test
  void severalConflictsAreListedByManager() {
    ObjectNode live = apply(null, "kubectl", false, SYNC_D);
    String other =
        "{\"metadata\":{\"name\":\"sync-d\",\"labels\":{\"owner\":\"gitops\",\"app\":\"other\"}},"
            + "\"spec\":{\"group\":\"nightly\",\"type\":\"other\"}}";
    assertThatThrownBy(() -> apply(live, "gitops", false, other))
        .hasMessage(
            "Apply failed with 3 conflicts: conflicts with \"kubectl\":\n- .metadata.labels.app\n"
                + "- .spec.group\n- .spec.type");
  }

  @Test
  void ordinaryWritesRecordAnUpdateEntryPerManagerAndSubresource() {
    ObjectNode created =
        object(
            "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{"
                + "\"name\":\"mf1\",\"namespace\":\"t1\",\"uid\":\"u\",\"labels\":{\"x\":\"1\"}},"
                + "\"spec\":{\"type\":\"x\",\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
                + "\"image\":\"busybox\"}]}}}}");
    OWNERSHIP.recordUpdate(request("alpha", "", ""), BATCH_JOBS, null, created, false);
    ObjectNode statusWritten = created.deepCopy();
    statusWritten.putObject("status").put("message", "m").put("phase", "Queued");
    OWNERSHIP.recordUpdate(request("beta", "", ""), BATCH_JOBS, created, statusWritten, true);
    ObjectNode patched = statusWritten.deepCopy();
    patched.withObjectProperty("metadata").putObject("annotations").put("z", "3");
    ((ObjectNode) patched.get("spec")).put("group", "g");
    OWNERSHIP.recordUpdate(
        request("", "", "curl/8.5.0"), BATCH_JOBS, statusWritten, patched, false);
    assertThat(patched.at("/metadata/managedFields").toString())
        .isEqualTo(
            "[{\"manager\":\"alpha\",\"operation\":\"Update\",\"apiVersion\":"
                + "\"batch.octomy.io/v1alpha1\",\"time\":\"2026-12-01T15:59:01Z\",\"fieldsType\":"
                + "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:labels\":{\".\":{},\"f:x\":{}}},"
                + "\"f:spec\":{\".\":{},\"f:template\":{\".\":{},\"f:spec\":{\".\":{},"
                + "\"f:containers\":{}}},\"f:type\":{}}}},"
                + "{\"manager\":\"beta\",\"operation\":\"Update\",\"apiVersion\":"
                + "\"batch.octomy.io/v1alpha1\",\"time\":\"2026-12-01T15:59:01Z\",\"fieldsType\":"
                + "\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\".\":{},\"f:message\":{},\"f:phase\":{}}},"
                + "\"subresource\":\"status\"},"
                + "{\"manager\":\"curl\",\"operation\":\"Update\",\"apiVersion\":"
                + "\"batch.octomy.io/v1alpha1\",\"time\":\"2026-12-01T15:59:01Z\",\"fieldsType\":"
                + "\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{\".\":{},"
                + "\"f:z\":{}}},\"f:spec\":{\"f:group\":{}}}}]");
  }

  @Test
  void kubectlsApplyKeepsTheClientSideAnnotationCurrent() {
    ObjectNode live = object(SYNC_D);
    live.withObjectProperty("metadata")
        .putObject("annotations")
        .put(FieldOwnership.LAST_APPLIED, "{\"kind\":\"BatchJob\"}\n");
    String changed =
        "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":"
            + "\"sync-d\",\"namespace\":\"t1\",\"labels\":{\"tier\":\"bronze\",\"app\":\"conf\"}},"
            + "\"spec\":{\"type\":\"render\"}}";
    ObjectNode result = apply(live, "kubectl", false, changed);
    assertThat(result.at("/metadata/annotations").get(FieldOwnership.LAST_APPLIED).asText())
        .isEqualTo(
            "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{"
                + "\"labels\":{\"app\":\"conf\",\"tier\":\"bronze\"},\"name\":\"sync-d\","
                + "\"namespace\":\"t1\"},\"spec\":{\"type\":\"render\"}}\n");
    ObjectNode byOther = apply(live, "gitops", false, changed);
    assertThat(byOther.at("/metadata/annotations").get(FieldOwnership.LAST_APPLIED).asText())
        .isEqualTo("{\"kind\":\"BatchJob\"}\n");
  }

  private static ObjectNode apply(ObjectNode live, String manager, boolean force, String body) {
    Map<String, String> query = new HashMap<>();
    query.put("fieldManager", manager);
    if (force) {
      query.put("force", "true");
    }
    ApiRequest req =
        new ApiRequest(
            "PATCH",
            "/",
            query,
            "",
            Patches.APPLY_PATCH,
            body.getBytes(StandardCharsets.UTF_8),
            "kubectl/v1.33.0");
    return OWNERSHIP.apply(req, BATCH_JOBS, live, false);
  }

  private static ApiRequest request(String manager, String subresource, String agent) {
    Map<String, String> query = new HashMap<>();
    if (!manager.isEmpty()) {
      query.put("fieldManager", manager);
    }
    return new ApiRequest("PUT", "/", query, "", "application/json", new byte[0], agent);
  }

  private static String owned(JsonNode object, String manager) {
    for (JsonNode e : object.at("/metadata/managedFields")) {
      if (e.path("manager").asText().equals(manager)) {
        return e.path("fieldsV1").toString();
      }
    }
    return null;
  }

  private static ObjectNode object(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static ResourceType batchJobs() {
    try {
      return ResourceRegistry.fromCrd(
          YAML.readTree(Files.readString(Path.of("crds/batchjobs.batch.octomy.io.yaml"))));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
