package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store on a real SQLite file: concurrent writes share commits, every acknowledged write is
 * read back after a restart, and nothing is seen by a read or a watch before it is on disk.
 */
class ObjectStoreDurabilityTest {

  private static final String RESOURCE = "/configmaps";
  private final ObjectMapper json = new ObjectMapper();

  @TempDir Path dir;

  private ObjectStore open(GroupCommit.Durability around, SqliteStateStore db) {
    return new ObjectStore(
        json,
        db,
        new CommitGuard(json, key -> null),
        ObjectStore.HISTORY,
        ObjectStore.HISTORY_BYTES,
        around,
        behindDisk -> {
          throw behindDisk; // none is expected here; the last case records them
        });
  }

  private ObjectNode configMap(String name) {
    ObjectNode o = json.createObjectNode();
    o.put("apiVersion", "v1").put("kind", "ConfigMap");
    o.putObject("metadata").put("name", name).put("namespace", "default");
    return o;
  }

  private ObjectNode create(ObjectStore store, String name) {
    return store.write(
        RESOURCE, "default", name, false, current -> new ObjectStore.Put(configMap(name)));
  }

  @Test
  void concurrentWritesShareCommitsAndAllSurviveARestart() throws Exception {
    int writers = 16;
    int each = 100;
    long transactions;
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    try (ObjectStore store = open(db::commit, db)) {
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    create(store, "w" + writer + "-" + i);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
      pool.shutdown();
      transactions = db.transactions();
      assertThat(store.resourceVersion()).isEqualTo(writers * each);
    }

    assertThat(transactions).isLessThan(writers * each);
    SqliteStateStore reopened = SqliteStateStore.open(dir.resolve("state.db"));
    try (ObjectStore again = open(reopened::commit, reopened)) {
      assertThat(again.list(RESOURCE, "default").items()).hasSize(writers * each);
      assertThat(again.resourceVersion()).isEqualTo(writers * each);
    }
  }

  @Test
  void aWriteIsNeitherReadNorWatchedNorAnsweredBeforeItIsOnDisk() throws Exception {
    CountDownLatch onDisk = new CountDownLatch(1);
    CountDownLatch committing = new CountDownLatch(1);
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    List<String> watched = new ArrayList<>();
    try (ObjectStore store =
        open(
            rows -> {
              committing.countDown();
              try {
                onDisk.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              db.commit(rows);
            },
            db)) {
      store.watch(
          RESOURCE,
          "default",
          0L,
          new EveryEvent(e -> watched.add(e.type() + " " + e.resourceVersion())),
          () -> {},
          () -> {});
      AtomicReference<ObjectNode> answer = new AtomicReference<>();
      Thread writer = new Thread(() -> answer.set(create(store, "a")));
      writer.start();
      assertThat(committing.await(30, TimeUnit.SECONDS)).isTrue();

      assertThat(answer.get()).isNull();
      assertThat(store.get(RESOURCE, "default", "a")).isNull();
      assertThat(store.list(RESOURCE, "default").items()).isEmpty();
      assertThat(watched).isEmpty();

      onDisk.countDown();
      writer.join(30_000);
      assertThat(answer.get()).isNotNull();
      assertThat(store.get(RESOURCE, "default", "a")).isNotNull();
      assertThat(watched).containsExactly("ADDED 1");
    }
  }

  /**
   * The heap running out while a write on disk is made visible would leave reads and watches behind
   * the database: the store hands the error to what stops the process (here recorded) rather than
   * serve on without that write. The error is caused by an in-process listener, as running out of
   * memory at exactly that point cannot be caused on purpose.
   */
  @Test
  void aWriteOnDiskThatCannotBeMadeVisibleStopsTheProcess() throws Exception {
    List<Error> stops = new ArrayList<>();
    SqliteStateStore db = SqliteStateStore.open(dir.resolve("state.db"));
    OutOfMemoryError outOfMemory = new OutOfMemoryError("Java heap space");
    try (ObjectStore store =
        new ObjectStore(
            json,
            db,
            new CommitGuard(json, key -> null),
            ObjectStore.HISTORY,
            ObjectStore.HISTORY_BYTES,
            db::commit,
            stops::add)) {
      store.listen(
          new EveryEvent(
              event -> {
                throw outOfMemory;
              }));

      create(store, "a");

      assertThat(stops).containsExactly(outOfMemory);
    }
    SqliteStateStore reopened = SqliteStateStore.open(dir.resolve("state.db"));
    try (ObjectStore again = open(reopened::commit, reopened)) {
      assertThat(again.get(RESOURCE, "default", "a")).as("the write is on disk").isNotNull();
    }
  }
}
