package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watch with a field selector sees an object that is modified into its selection as ADDED and one
 * modified out of it as DELETED (its last selected state, at the version that moved it), as on
 * kube-apiserver, so that a cache of only the selected objects neither misses one nor keeps one
 * that left; the BatchJob CRD's selectable field {@code status.node} is served in lists and
 * watches.
 */
class SelectedWatchIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String JOBS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";
  private static final String MERGE = "application/merge-patch+json";

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
  void aJobPlacedOnANodeAndMovedOffItIsAddedThenDeletedForThatNodesWatch() throws Exception {
    String created = version(api.post(JOBS, job("moved")));
    version(api.post(JOBS, job("never-placed")));
    String placed = version(node("moved", "ws-1"));
    String other = version(node("never-placed", "ws-2"));
    String movedOff = version(node("moved", "ws-2"));

    List<JsonNode> events =
        events(
            api.get(
                JOBS
                    + "?watch=true&timeoutSeconds=1&fieldSelector=status.node%3Dws-1"
                    + "&resourceVersion="
                    + created));
    assertThat(events).hasSize(2);
    assertThat(events.get(0).path("type").asText()).isEqualTo("ADDED");
    assertThat(events.get(0).at("/object/metadata/resourceVersion").asText()).isEqualTo(placed);
    assertThat(events.get(1).path("type").asText()).isEqualTo("DELETED");
    assertThat(events.get(1).at("/object/metadata/name").asText()).isEqualTo("moved");
    // the last state it was selected in, at the version that took it out
    assertThat(events.get(1).at("/object/status/node").asText()).isEqualTo("ws-1");
    assertThat(events.get(1).at("/object/metadata/resourceVersion").asText()).isEqualTo(movedOff);

    // ws-2's watch from the same point: the other job placed, then this one moved in
    List<JsonNode> ws2 =
        events(
            api.get(
                JOBS
                    + "?watch=true&timeoutSeconds=1&fieldSelector=status.node%3Dws-2"
                    + "&resourceVersion="
                    + created));
    assertThat(ws2).extracting(e -> e.path("type").asText()).containsExactly("ADDED", "ADDED");
    assertThat(ws2.get(0).at("/object/metadata/resourceVersion").asText()).isEqualTo(other);
    assertThat(ws2.get(1).at("/object/metadata/resourceVersion").asText()).isEqualTo(movedOff);

    RawApi.Answer list = api.get(JOBS + "?fieldSelector=status.node%3Dws-2");
    assertThat(list.code()).as(list.body()).isEqualTo(200);
    List<String> names = new ArrayList<>();
    list.json().path("items").forEach(i -> names.add(i.at("/metadata/name").asText()));
    assertThat(names).containsExactly("moved", "never-placed");
    assertThat(api.get(JOBS + "?fieldSelector=status.node%3Dws-1").json().path("items")).isEmpty();
    assertThat(api.get(JOBS + "?fieldSelector=status.phase%3DQueued").code()).isEqualTo(400);
  }

  private static String job(String name) {
    return "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{\"name\":\""
        + name
        + "\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"x\","
        + "\"command\":[\"true\"]}]}}}}";
  }

  private static RawApi.Answer node(String job, String node) {
    return api.send(
        "PATCH", JOBS + "/" + job + "/status", MERGE, "{\"status\":{\"node\":\"" + node + "\"}}");
  }

  private static String version(RawApi.Answer a) {
    assertThat(a.code()).as(a.body()).isBetween(200, 201);
    return a.json().path("metadata").path("resourceVersion").asText();
  }

  private static List<JsonNode> events(RawApi.Answer watch) throws Exception {
    assertThat(watch.code()).as(watch.body()).isEqualTo(200);
    List<JsonNode> out = new ArrayList<>();
    for (String line : watch.body().split("\n")) {
      if (!line.isBlank()) {
        out.add(JSON.readTree(line));
      }
    }
    return out;
  }
}
