package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watch whose connection fails while an event is sent to it: it gets an ERROR event and is ended
 * (its client watches again from the last version it saw), it is sent nothing more, and the write
 * and every other watch go on. The failing connection is a sink that throws on a chosen line: a
 * fault a real socket gives only by chance.
 */
class WatchFailureTest {

  @TempDir Path dir;
  private WatchedStore server;
  private ObjectMapper json;

  /** Records what it is sent; throws instead of sending the {@code failAt}-th line (from 1). */
  private static final class Connection implements WatchSink {
    final List<String> lines = new ArrayList<>();
    final List<Runnable> onClosed = new ArrayList<>();
    final int failAt;
    int sends;
    int ends;

    Connection(int failAt) {
      this.failAt = failAt;
    }

    @Override
    public void send(String event) {
      if (++sends == failAt) {
        throw new IllegalStateException("connection reset while writing");
      }
      lines.add(event);
    }

    @Override
    public void end() {
      ends++;
      onClosed.forEach(Runnable::run);
    }

    @Override
    public void onClosed(Runnable action) {
      onClosed.add(action);
    }
  }

  @BeforeEach
  void open() {
    server = new WatchedStore(dir, (ms, task) -> {}, 60_000);
    json = server.json;
  }

  @AfterEach
  void close() {
    server.close();
  }

  private void watch(Connection c) {
    server.watch("timeoutSeconds=600", c);
  }

  private ObjectNode create(String name) {
    return server.create(name);
  }

  private List<String> names(Connection c) throws Exception {
    List<String> out = new ArrayList<>();
    for (String line : c.lines) {
      JsonNode e = json.readTree(line);
      out.add(e.path("type").asText() + " " + e.at("/object/metadata/name").asText());
    }
    return out;
  }

  @Test
  void aWatchThatCannotBeSentAnEventIsToldAndEndedAndTheOthersGoOn() throws Exception {
    Connection failing = new Connection(2);
    Connection other = new Connection(0);
    watch(failing);
    watch(other);

    create("a");
    ObjectNode b = create("b");
    create("c");

    // the write the failing watch could not be sent is answered and stored
    assertThat(b.at("/metadata/resourceVersion").asText()).isNotEmpty();
    assertThat(server.store.get("/configmaps", "default", "b")).isNotNull();
    assertThat(other.lines).hasSize(3);
    assertThat(names(other)).containsExactly("ADDED a", "ADDED b", "ADDED c");
    assertThat(failing.ends).isEqualTo(1);
    assertThat(failing.lines).hasSize(2);
    assertThat(names(failing).get(0)).isEqualTo("ADDED a");
    JsonNode error = json.readTree(failing.lines.get(1));
    assertThat(error.path("type").asText()).isEqualTo("ERROR");
    assertThat(error.at("/object/code").asInt()).isEqualTo(500);
    assertThat(error.at("/object/message").asText()).contains("watch again");
  }
}
