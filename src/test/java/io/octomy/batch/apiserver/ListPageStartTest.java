package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A list's next page is read from after the last page's key: the store hands out only the objects
 * after it, in a namespace or across all, whatever key a client's token names.
 */
class ListPageStartTest {

  private static final String RESOURCE = "/configmaps";
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void aPageStartsAfterTheLastKeyAndNeverOutsideItsResourceOrNamespace() {
    try (ObjectStore store =
        new ObjectStore(
            json,
            SqliteStateStore.open(dir.resolve("state.db")),
            new CommitGuard(json, key -> null),
            ObjectStore.HISTORY)) {
      for (String ns : List.of("a", "b")) {
        for (String name : List.of("x", "y", "z")) {
          store.write(RESOURCE, ns, name, false, c -> new ObjectStore.Put(configMap(ns, name)));
        }
      }
      store.write("/secrets", "a", "s", false, c -> new ObjectStore.Put(configMap("a", "s")));

      assertThat(keys(store, "a", null)).containsExactly("a\u0000x", "a\u0000y", "a\u0000z");
      assertThat(keys(store, "a", "a\u0000x")).containsExactly("a\u0000y", "a\u0000z");
      assertThat(keys(store, null, "a\u0000z")).containsExactly("b\u0000x", "b\u0000y", "b\u0000z");
      // a token naming another namespace's key: never an object outside the one listed
      assertThat(keys(store, "b", "a\u0000y")).containsExactly("b\u0000x", "b\u0000y", "b\u0000z");
      assertThat(keys(store, "a", "b\u0000x")).isEmpty();
      assertThat(keys(store, null, "\uffff")).isEmpty();
      assertThat(keys(store, null, "")).hasSize(6);
    }
  }

  @Test
  void aPageHoldsTheStoresPackedTextsAndUnpacksNoneWithoutSelectors() {
    try (ObjectStore store =
        new ObjectStore(
            json,
            SqliteStateStore.open(dir.resolve("state.db")),
            new CommitGuard(json, key -> null),
            ObjectStore.HISTORY)) {
      for (String name : List.of("x", "y", "z")) {
        store.write(RESOURCE, "a", name, false, c -> new ObjectStore.Put(configMap("a", name)));
      }
      ObjectStore.TextListing all = store.listText(RESOURCE, "a");
      ApiRequest firstTwo =
          new ApiRequest(
              "GET", "/api/v1/namespaces/a/configmaps", Map.of("limit", "2"), "", "", null);

      ListPage page =
          ListPage.of(
              firstTwo,
              all,
              text -> {
                throw new AssertionError("no selector, yet " + text + " was unpacked to select");
              });

      assertThat(page.items()).hasSize(2);
      assertThat(page.items().get(0)).isSameAs(all.items().get(0).packed());
      assertThat(page.remaining()).isEqualTo(1);
    }
  }

  private static List<String> keys(ObjectStore store, String namespace, String after) {
    return store.listText(RESOURCE, namespace, after).items().stream()
        .map(ObjectIndex.ListedText::key)
        .toList();
  }

  private ObjectNode configMap(String namespace, String name) {
    ObjectNode o = json.createObjectNode();
    o.put("apiVersion", "v1").put("kind", "ConfigMap");
    o.putObject("metadata").put("name", name).put("namespace", namespace);
    return o;
  }
}
