package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A list is answered from the objects' committed text, copied as it is where it already is what the
 * list serves, read and converted where not: every item of a list equals a get of the same object
 * in the same version, whatever field the object was written with first and whichever version of
 * its resource is asked for; selectors and pages select as before.
 */
class ListReadsIT {

  private static final String JOBS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";
  private static final String MERGE = "application/merge-patch+json";
  private static final String WIDGETS = "/apis/example.com/%s/namespaces/default/widgets";

  @TempDir static Path dir;
  static EmbeddedApiServer server;
  static RawApi api;

  @BeforeAll
  static void start() {
    server = EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds());
    api = new RawApi(server);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void everyItemOfAListIsWhatAGetOfItServes() {
    created(api.post(JOBS, job("api-version-first", "items", true)));
    created(api.post(JOBS, job("kind-first", "items", false)));
    created(api.post(JOBS, job("placed", "items", true)));
    assertThat(
            api.send("PATCH", JOBS + "/placed/status", MERGE, "{\"status\":{\"node\":\"ws-1\"}}")
                .code())
        .isEqualTo(200);

    JsonNode list = ok(api.get(JOBS + "?labelSelector=case%3Ditems"));
    assertThat(list.path("kind").asText()).isEqualTo("BatchJobList");
    assertThat(list.path("apiVersion").asText()).isEqualTo("batch.octomy.io/v1alpha1");
    assertThat(list.at("/metadata/resourceVersion").asText()).isNotEmpty();
    assertThat(names(list)).containsExactly("api-version-first", "kind-first", "placed");
    for (JsonNode item : list.path("items")) {
      assertThat(item).isEqualTo(ok(api.get(JOBS + "/" + item.at("/metadata/name").asText())));
    }
  }

  @Test
  void aFieldSelectorSelectsOnlyTheObjectsWhoseFieldHoldsTheValue() {
    created(api.post(JOBS, job("on-ws-2", "fields", true)));
    created(api.post(JOBS, job("named-ws-2", "fields", true)));
    api.send("PATCH", JOBS + "/on-ws-2/status", MERGE, "{\"status\":{\"node\":\"ws-2\"}}");

    assertThat(names(ok(api.get(JOBS + "?fieldSelector=status.node%3Dws-2"))))
        .containsExactly("on-ws-2");
    assertThat(names(ok(api.get(JOBS + "?fieldSelector=status.node%3D%3Dws-2"))))
        .containsExactly("on-ws-2");
    assertThat(names(ok(api.get(JOBS + "?fieldSelector=metadata.name%3Dnamed-ws-2"))))
        .containsExactly("named-ws-2");
    assertThat(names(ok(api.get(JOBS + "?fieldSelector=status.node%21%3Dws-2"))))
        .contains("named-ws-2")
        .doesNotContain("on-ws-2");
    // an empty value selects the jobs without a node
    assertThat(names(ok(api.get(JOBS + "?fieldSelector=status.node%3D"))))
        .contains("named-ws-2")
        .doesNotContain("on-ws-2");
  }

  @Test
  void aListOfManyPiecesArrivesWholeWithEveryObjectInOrder() {
    // 30 objects of 70 to 170 KB (each larger than a piece of the answer, some smaller than two)
    // and 300 small ones between them: about 3.7 MB, written to the connection in pieces
    String maps = "/api/v1/namespaces/default/configmaps";
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 330; i++) {
      String name = String.format("piece-%03d", i);
      int size = i % 11 == 0 ? 70_000 + 100 * i : 40;
      String data = ("" + (char) ('a' + i % 26)).repeat(size);
      created(
          api.post(
              maps,
              "{\"metadata\":{\"name\":\""
                  + name
                  + "\",\"labels\":{\"case\":\"pieces\"}},\"data\":{\"v\":\""
                  + data
                  + "\"}}"));
      expected.add(name + "=" + size);
    }
    JsonNode list = ok(api.get(maps + "?labelSelector=case%3Dpieces"));
    List<String> got = new ArrayList<>();
    list.path("items")
        .forEach(
            i ->
                got.add(i.at("/metadata/name").asText() + "=" + i.at("/data/v").asText().length()));
    assertThat(got).isEqualTo(expected);
  }

  @Test
  void pagesOfAListHoldEveryObjectOnce() {
    for (int i = 0; i < 5; i++) {
      created(api.post(JOBS, job("paged-" + i, "pages", i % 2 == 0)));
    }
    String pages = JOBS + "?labelSelector=case%3Dpages";
    List<String> all = names(ok(api.get(pages)));
    assertThat(all).hasSize(5);
    List<String> paged = new ArrayList<>();
    String next = "";
    do {
      JsonNode page = ok(api.get(pages + "&limit=2" + (next.isEmpty() ? "" : "&continue=" + next)));
      assertThat(page.path("items").size()).isLessThanOrEqualTo(2);
      paged.addAll(names(page));
      next = page.at("/metadata/continue").asText("");
    } while (!next.isEmpty());
    assertThat(paged).isEqualTo(all);
  }

  @Test
  void aListInAnotherVersionOfItsResourceServesThatVersion() throws Exception {
    created(api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCrd()));
    String v1 = WIDGETS.formatted("v1");
    String v2 = WIDGETS.formatted("v2");
    RawApi.Answer widget = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      widget =
          api.post(
              v1,
              "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
                  + "\"metadata\":{\"name\":\"w\"},\"spec\":{\"size\":3}}");
      if (widget.code() != 404) {
        break;
      }
      Thread.sleep(100); // the new resource is served once its CRD is established
    }
    created(widget);

    JsonNode inV2 = ok(api.get(v2));
    assertThat(inV2.path("apiVersion").asText()).isEqualTo("example.com/v2");
    assertThat(inV2.at("/items/0/apiVersion").asText()).isEqualTo("example.com/v2");
    assertThat(inV2.at("/items/0")).isEqualTo(ok(api.get(v2 + "/w")));
    assertThat(ok(api.get(v1)).at("/items/0")).isEqualTo(ok(api.get(v1 + "/w")));
  }

  private static String widgetCrd() {
    String version =
        "{\"name\":\"%s\",\"served\":true,\"storage\":%s,\"schema\":{\"openAPIV3Schema\":"
            + "{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}";
    return "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\","
        + "\"metadata\":{\"name\":\"widgets.example.com\"},\"spec\":{\"group\":\"example.com\","
        + "\"scope\":\"Namespaced\",\"names\":{\"plural\":\"widgets\",\"singular\":\"widget\","
        + "\"kind\":\"Widget\",\"listKind\":\"WidgetList\"},\"versions\":["
        + version.formatted("v1", "true")
        + ","
        + version.formatted("v2", "false")
        + "]}}";
  }

  /** A job labelled {@code case=CASE}, written with apiVersion or kind first. */
  private static String job(String name, String testCase, boolean apiVersionFirst) {
    String head = "\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\"";
    if (!apiVersionFirst) {
      head = "\"kind\":\"BatchJob\",\"apiVersion\":\"batch.octomy.io/v1alpha1\"";
    }
    return "{"
        + head
        + ",\"metadata\":{\"name\":\""
        + name
        + "\",\"labels\":{\"case\":\""
        + testCase
        + "\"}},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"x\","
        + "\"command\":[\"true\"]}]}}}}";
  }

  private static void created(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isEqualTo(201);
  }

  private static JsonNode ok(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isEqualTo(200);
    return a.json();
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(i -> names.add(i.at("/metadata/name").asText()));
    return names;
  }
}
