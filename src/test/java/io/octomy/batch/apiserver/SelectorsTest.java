package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Label and field selectors against the real server's answers: each refusal below is the message a
 * kube-apiserver 1.34 gave for the same expression.
 */
class SelectorsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ResourceRegistry REGISTRY = new ResourceRegistry();
  private static final String NAME_RULE =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
          + " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for"
          + " validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

  private static JsonNode labelled(String labels) throws Exception {
    return JSON.readTree("{\"metadata\":{\"labels\":" + labels + "}}");
  }

  private static void refusedAs(String expression, String message) {
    assertThatThrownBy(() -> Selectors.labels(expression))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(400))
        .hasMessage(message);
  }

  @Test
  void labelSelectorsMatchAsOnARealServer() throws Exception {
    JsonNode gold = labelled("{\"tier\":\"gold\",\"size\":\"5\"}");
    JsonNode bare = labelled("{}");
    Predicate<JsonNode> in = Selectors.labels("tier in (gold,silver)");
    assertThat(in.test(gold)).isTrue();
    assertThat(in.test(bare)).isFalse();
    assertThat(Selectors.labels("tier notin (gold)").test(bare)).isTrue();
    assertThat(Selectors.labels("!tier").test(bare)).isTrue();
    assertThat(Selectors.labels("tier,tier!=silver").test(gold)).isTrue();
    assertThat(Selectors.labels("size>3,size<6").test(gold)).isTrue();
    assertThat(Selectors.labels("tier==").test(labelled("{\"tier\":\"\"}"))).isTrue();
    assertThat(Selectors.labels("in=x").test(labelled("{\"in\":\"x\"}"))).isTrue();
    assertThat(Selectors.labels("tier in ()").test(labelled("{\"tier\":\"\"}"))).isTrue();
  }

  @Test
  void labelSelectorsAreRefusedWithTheRealServersWords() {
    refusedAs("tier in gold", "unable to parse requirement: found 'gold' expected: '('");
    refusedAs(
        "a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    refusedAs("!a=b", "found '=', expected: ',' or 'end of string'");
    refusedAs("a,,b", "found ',', expected: identifier after ','");
    refusedAs("(a)", "found '(', expected: !, identifier, or 'end of string'");
    refusedAs("a in (b", "unable to parse requirement: found '', expected: ',' or ')'");
    refusedAs(
        "a>x",
        "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators,"
            + " the value must be an integer");
    refusedAs(
        "-bad=x",
        "unable to parse requirement: <nil>: Invalid value: \"-bad\": name part " + NAME_RULE);
    refusedAs(
        "/a",
        "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty");
    refusedAs(
        "a/b/c",
        "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name "
            + NAME_RULE
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    refusedAs(
        "example..com/a",
        "unable to parse requirement: <nil>: Invalid value: \"example..com/a\": prefix part a"
            + " lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters,"
            + " '-' or '.', and must start and end with an alphanumeric character (e.g."
            + " 'example.com', regex used for validation is"
            + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    refusedAs(
        "tier=-x",
        "unable to parse requirement: values[0][tier]: Invalid value: \"-x\": a valid label must"
            + " be an empty string or consist of alphanumeric characters, '-', '_' or '.', and"
            + " must start and end with an alphanumeric character (e.g. 'MyValue',  or"
            + " 'my_value',  or '12345', regex used for validation is"
            + " '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }

  @Test
  void fieldSelectorsOfferWhatEachResourceOffers() throws Exception {
    ResourceType configMaps = REGISTRY.find("", "v1", "configmaps").orElseThrow();
    ResourceType events = REGISTRY.find("", "v1", "events").orElseThrow();
    ResourceType nodes = REGISTRY.find("", "v1", "nodes").orElseThrow();
    ResourceType custom =
        ResourceRegistry.fromCrd(
            TableRendererTest.YAML.readTree(Files.readString(TestCrds.sampleCrd())));
    JsonNode event =
        JSON.readTree(
            "{\"metadata\":{\"name\":\"e\"},\"involvedObject\":{\"name\":\"a\"},"
                + "\"type\":\"Warning\",\"source\":{\"component\":\"agent\"}}");
    assertThat(FieldSelectors.of("involvedObject.name=a,type=Warning", events, "v1").test(event))
        .isTrue();
    assertThat(FieldSelectors.of("source=agent", events, "v1").test(event)).isTrue();
    assertThat(FieldSelectors.of("metadata.name!=e", events, "v1").test(event)).isFalse();
    assertThat(FieldSelectors.of("spec.unschedulable=false", nodes, "v1").test(JSON.readTree("{}")))
        .isTrue();
    assertThat(
            FieldSelectors.of("metadata.name=a\\,b", configMaps, "v1")
                .test(JSON.readTree("{\"metadata\":{\"name\":\"a,b\"}}")))
        .isTrue();

    assertThatThrownBy(() -> FieldSelectors.of("data.a=b", configMaps, "v1"))
        .hasMessage(
            "\"data.a\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
    assertThatThrownBy(() -> FieldSelectors.of("spec.size=4", custom, custom.preferredVersion()))
        .hasMessage("field label not supported: spec.size");
    assertThatThrownBy(() -> FieldSelectors.of("metadata.namespace=x", nodes, "v1"))
        .hasMessage("field label not supported: metadata.namespace");
    assertThatThrownBy(() -> FieldSelectors.of("metadata.name=a=b", configMaps, "v1"))
        .hasMessage("invalid field selector: unescaped character in value: 61");
    assertThatThrownBy(() -> FieldSelectors.of("metadata.name", configMaps, "v1"))
        .hasMessage("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  }

  @Test
  void aCustomResourceOffersItsSelectableFieldsInTheVersionsThatDeclareThem() throws Exception {
    ResourceType jobs =
        ResourceRegistry.fromCrd(
            TableRendererTest.YAML.readTree(
                Files.readString(Path.of("crds/batchjobs.batch.octomy.io.yaml"))));
    Predicate<JsonNode> onWs1 = FieldSelectors.of("status.node=ws-1", jobs, "v1alpha1");
    JsonNode placed =
        JSON.readTree("{\"metadata\":{\"name\":\"a\"},\"status\":{\"node\":\"ws-1\"}}");
    JsonNode elsewhere = JSON.readTree("{\"status\":{\"node\":\"ws-2\"}}");
    JsonNode waiting = JSON.readTree("{\"status\":{\"phase\":\"Queued\"}}");
    assertThat(onWs1.test(placed)).isTrue();
    assertThat(onWs1.test(elsewhere)).isFalse();
    assertThat(onWs1.test(waiting)).isFalse();
    // an absent field reads as the empty string
    assertThat(FieldSelectors.of("status.node=", jobs, "v1alpha1").test(waiting)).isTrue();
    assertThat(
            FieldSelectors.of("status.node!=ws-1,metadata.name=a", jobs, "v1alpha1").test(placed))
        .isFalse();
    // a version that does not declare it does not offer it
    assertThatThrownBy(() -> FieldSelectors.of("status.node=ws-1", jobs, "v9"))
        .hasMessage("field label not supported: status.node");
    assertThatThrownBy(() -> FieldSelectors.of("status.phase=Queued", jobs, "v1alpha1"))
        .hasMessage("field label not supported: status.phase");
  }
}
