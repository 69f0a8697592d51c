package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store keeps objects and its watch history as committed text: every read is a tree of its own
 * that the reader may change, and a watch resumed from the history gets each change with its
 * object, the object before it (MODIFIED) and the last state of a deleted one, as they were
 * committed.
 */
class ObjectStoreHistoryTest {

  private static final String RESOURCE = "/configmaps";
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  private ObjectNode configMap(String name, String value) {
    ObjectNode o = json.createObjectNode();
    o.put("apiVersion", "v1").put("kind", "ConfigMap");
    o.putObject("metadata").put("name", name).put("namespace", "default");
    o.putObject("data").put("k", value);
    return o;
  }

  @Test
  void readsAreTreesOfTheirOwnAndAResumedWatchGetsEachCommittedChange() throws Exception {
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    try (ObjectStore store =
        new ObjectStore(json, db, new CommitGuard(json, key -> null), ObjectStore.HISTORY)) {
      store.write(RESOURCE, "default", "a", false, c -> new ObjectStore.Put(configMap("a", "1")));
      store.write(RESOURCE, "default", "b", false, c -> new ObjectStore.Put(configMap("b", "1")));
      store.write(RESOURCE, "default", "a", false, c -> new ObjectStore.Put(configMap("a", "2")));
      store.write(
          RESOURCE, "default", "b", false, c -> new ObjectStore.Remove(configMap("b", "last")));
      store.write("/secrets", "default", "s", false, c -> new ObjectStore.Put(configMap("s", "x")));

      ObjectNode read = store.get(RESOURCE, "default", "a");
      read.withObjectProperty("data").put("k", "changed by a reader");
      store.list(RESOURCE, "default").items().get(0).remove("data");
      assertThat(store.get(RESOURCE, "default", "a").at("/data/k").asText()).isEqualTo("2");
      assertThat(store.get(RESOURCE, "default", "a").at("/metadata/resourceVersion").asText())
          .isEqualTo("3");

      List<String> seen = new ArrayList<>();
      store.watch(
          RESOURCE,
          "default",
          0L,
          new EveryEvent(
              e ->
                  seen.add(
                      e.type()
                          + " "
                          + e.resourceVersion()
                          + " "
                          + e.object().at("/metadata/name").asText()
                          + "="
                          + e.object().at("/data/k").asText()
                          + (e.previous() == null
                              ? ""
                              : " was " + e.previous().at("/data/k").asText()))),
          () -> {},
          () -> {});
      assertThat(seen)
          .containsExactly(
              "ADDED 1 a=1", "ADDED 2 b=1", "MODIFIED 3 a=2 was 1", "DELETED 4 b=last");
    }
  }

  @Test
  void theObjectBeforeAChangeIsReadFromItsTextOnlyWhenAskedForAndOnce() {
    AtomicInteger reads = new AtomicInteger();
    ObjectStore.PreviousObject before =
        ObjectStore.PreviousObject.of(
            CompactText.pack(json.createObjectNode().put("k", "1").toString()),
            text -> {
              reads.incrementAndGet();
              try {
                return (ObjectNode) json.readTree(CompactText.unpack(text));
              } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
              }
            });
    ObjectStore.Event event =
        new ObjectStore.Event(
            ObjectStore.EventType.MODIFIED, RESOURCE, "default", 7, configMap("a", "2"), before, 0);

    assertThat(event.hasPrevious()).isTrue();
    assertThat(reads).hasValue(0);
    assertThat(event.previous().path("k").asText()).isEqualTo("1");
    assertThat(event.previous()).isSameAs(event.previous());
    assertThat(reads).hasValue(1);

    assertThat(
            ObjectStore.PreviousObject.of(
                null,
                text -> {
                  throw new AssertionError("nothing to read");
                }))
        .isNull();
  }

  @Test
  void aCommittedObjectsTextIsTheCommittedTextWithoutAnotherSerialization() throws Exception {
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    try (ObjectStore store =
        new ObjectStore(json, db, new CommitGuard(json, key -> null), ObjectStore.HISTORY)) {
      ObjectNode answer =
          store.write(
              RESOURCE, "default", "a", false, c -> new ObjectStore.Put(configMap("a", "1")));

      // the store keeps the text packed, so the index's copy is a new string; the text kept for
      // the answer is the one committed, not serialized again
      String committed = store.listText(RESOURCE, "default").items().get(0).text();
      String kept = store.texts().text(answer);
      assertThat(kept).isEqualTo(committed);
      assertThat(store.texts().text(answer)).isSameAs(kept);
      assertThat(committed).isEqualTo(json.writeValueAsString(answer));
    }
  }
}
