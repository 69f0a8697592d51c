package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compact form the store keeps objects in: every text comes back exactly, whatever it holds,
 * and a BatchJob as the server commits it (field owners, a status) is kept in a fraction of its
 * length.
 */
class CompactTextTest {

  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  /** A BatchJob as stored after the controller's first status write, as a user's job looks. */
  static final String JOB =
      "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{"
          + "\"name\":\"render-2031\",\"namespace\":\"team-a\",\"uid\":"
          + "\"6f1c2a8e-93b4-4c1e-a0d2-5b7e9f3c1d42\",\"creationTimestamp\":\"2026-12-07T22:44:31Z\","
          + "\"generation\":1,\"labels\":{\"project\":\"film\"},\"managedFields\":[{\"manager\":"
          + "\"kubectl-create\",\"operation\":\"Update\",\"apiVersion\":\"batch.octomy.io/v1alpha1\","
          + "\"time\":\"2026-12-07T22:44:31Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{"
          + "\"f:metadata\":{\"f:labels\":{\".\":{},\"f:project\":{}}},\"f:spec\":{\".\":{},"
          + "\"f:resources\":{\".\":{},\"f:requests\":{\".\":{},\"f:octomy.io/cpu-milli\":{},"
          + "\"f:octomy.io/memory-bytes\":{}}},\"f:template\":{\".\":{},\"f:spec\":{\".\":{},"
          + "\"f:containers\":{}}}}}},{\"manager\":\"octomy-batch-controller\",\"operation\":"
          + "\"Update\",\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"time\":"
          + "\"2026-12-07T22:44:32Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{"
          + "\".\":{},\"f:conditions\":{},\"f:effectivePriority\":{},\"f:message\":{},"
          + "\"f:observedGeneration\":{},\"f:phase\":{},\"f:queuedAt\":{},\"f:reason\":{},"
          + "\"f:serviceClass\":{}}},\"subresource\":\"status\"}],\"finalizers\":["
          + "\"batch.octomy.io/reservation-in-use\"],\"resourceVersion\":\"88213\"},\"spec\":{"
          + "\"resources\":{\"requests\":{\"octomy.io/cpu-milli\":2000,\"octomy.io/memory-bytes\":"
          + "4294967296}},\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":"
          + "\"blender:4.2\",\"command\":[\"blender\",\"-b\",\"scene.blend\",\"-f\",\"2031\"]}]}}},"
          + "\"status\":{\"phase\":\"Queued\",\"serviceClass\":\"Burstable\",\"reason\":"
          + "\"WaitingForCapacity\",\"message\":\"waiting for 2000 octomy.io/cpu-milli on one node\","
          + "\"effectivePriority\":100,\"queuedAt\":\"2026-12-07T22:44:32.104519Z\",\"conditions\":"
          + "[{\"lastTransitionTime\":\"2026-12-07T22:44:32Z\",\"message\":\"waiting for 2000"
          + " octomy.io/cpu-milli on one node\",\"observedGeneration\":1,\"reason\":"
          + "\"WaitingForCapacity\",\"status\":\"False\",\"type\":\"Admitted\"}],"
          + "\"observedGeneration\":1}}";

  @Test
  void everyTextComesBackExactly() {
    StringBuilder random = new StringBuilder();
    Random r = new Random(49);
    for (int i = 0; i < 5000; i++) {
      random.append((char) (0x20 + r.nextInt(0x5f)));
    }
    List<String> texts =
        List.of(
            JOB,
            "",
            "{}",
            "{\"data\":{\"greeting\":\"grüße, 你好, 😀\"}}",
            "{\"v\":\"" + random + "\"}",
            "{\"v\":\"" + "x".repeat(1_500_000) + "\"}");
    for (String text : texts) {
      assertThat(CompactText.unpack(CompactText.pack(text))).isEqualTo(text);
    }
  }

  @Test
  void aBatchJobIsKeptInLessThanAFifthOfItsText() {
    assertThat(CompactText.pack(JOB).length).isLessThan(JOB.length() / 5);
  }

  @Test
  void aTextThatDeflatingWouldNotShortenIsKeptPlain() {
    Random r = new Random(7);
    byte[] noise = new byte[3000];
    r.nextBytes(noise);
    String text = "{\"v\":\"" + java.util.Base64.getEncoder().encodeToString(noise) + "\"}";
    byte[] packed = CompactText.pack(text);
    assertThat(packed.length).isLessThanOrEqualTo(text.length() + 5);
    assertThat(CompactText.unpack(packed)).isEqualTo(text);
  }

  @Test
  void theStoreKeepsAJobPackedAndServesItAsCommittedBeforeAndAfterARestart() throws Exception {
    ObjectNode job = (ObjectNode) json.readTree(JOB);
    String committed;
    try (ObjectStore store = open()) {
      store.write("/batchjobs", "team-a", "render-2031", false, c -> new ObjectStore.Put(job));
      committed = json.writeValueAsString(store.get("/batchjobs", "team-a", "render-2031"));
      assertThat(store.listText("/batchjobs", "team-a").items())
          .singleElement()
          .satisfies(
              listed -> {
                assertThat(listed.packed().length).isLessThan(JOB.length() / 5);
                assertThat(listed.text()).isEqualTo(committed);
              });
    }
    try (ObjectStore again = open()) {
      assertThat(json.writeValueAsString(again.get("/batchjobs", "team-a", "render-2031")))
          .isEqualTo(committed);
      assertThat(again.listText("/batchjobs", null).items().get(0).packed().length)
          .isLessThan(JOB.length() / 5);
    }
  }

  private ObjectStore open() {
    return new ObjectStore(
        json,
        SqliteStateStore.open(dir.resolve("state.db")),
        new CommitGuard(json, key -> null),
        ObjectStore.HISTORY);
  }
}
