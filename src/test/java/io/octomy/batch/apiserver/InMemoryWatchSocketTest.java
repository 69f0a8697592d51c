package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.http.WebSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The watch of the in-process client: messages in order and only as asked for, closes from either
 * side, and a reader too far behind.
 */
class InMemoryWatchSocketTest {

  /** Records what the listener is told; asks for the next message after each, as fabric8's does. */
  private static final class Recorder implements WebSocket.Listener {
    final List<String> told = new ArrayList<>();
    boolean asksForMore = true;

    @Override
    public void onOpen(WebSocket ws) {
      told.add("open");
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
      told.add(text);
      if (asksForMore) {
        ws.request();
      }
    }

    @Override
    public void onClose(WebSocket ws, int code, String reason) {
      told.add("close " + code);
    }
  }

  /** The hand-off threads, run by the test step by step. */
  private final ArrayDeque<Runnable> handOffs = new ArrayDeque<>();

  private void runHandOffs() {
    while (!handOffs.isEmpty()) {
      handOffs.poll().run();
    }
  }

  private InMemoryWatchSocket socket(Recorder recorder, long bufferBytes) {
    InMemoryWatchSocket socket = new InMemoryWatchSocket(recorder, handOffs::add, bufferBytes);
    socket.open();
    return socket;
  }

  @Test
  void messagesArriveInOrderAfterTheOpenAndOnlyAsAskedFor() {
    Recorder recorder = new Recorder();
    recorder.asksForMore = false;
    InMemoryWatchSocket socket = socket(recorder, 1024);
    socket.send("a");
    socket.send("b");
    socket.send("c");
    runHandOffs();
    assertThat(recorder.told).containsExactly("open", "a");
    socket.request();
    socket.request();
    runHandOffs();
    assertThat(recorder.told).containsExactly("open", "a", "b", "c");
  }

  @Test
  void theServersEndDeliversWhatIsQueuedThenACloseAndRunsTheCloseActionsOnce() {
    Recorder recorder = new Recorder();
    InMemoryWatchSocket socket = socket(recorder, 1024);
    AtomicInteger closeActions = new AtomicInteger();
    socket.onClosed(closeActions::incrementAndGet);
    socket.send("a");
    socket.end();
    socket.end();
    socket.send("after the end");
    runHandOffs();
    assertThat(recorder.told).containsExactly("open", "a", "close 1000");
    assertThat(closeActions).hasValue(1);
    socket.onClosed(closeActions::incrementAndGet);
    assertThat(closeActions).as("an action added after the close runs at once").hasValue(2);
  }

  @Test
  void theClientsCloseDropsWhatIsQueuedStopsTheWatchAndIsAnswered() {
    Recorder recorder = new Recorder();
    recorder.asksForMore = false;
    InMemoryWatchSocket socket = socket(recorder, 1024);
    AtomicInteger closeActions = new AtomicInteger();
    socket.onClosed(closeActions::incrementAndGet);
    socket.send("a");
    socket.send("b");
    runHandOffs();
    assertThat(socket.sendClose(1000, "done")).isTrue();
    assertThat(socket.sendClose(1000, "done")).as("closed once").isFalse();
    socket.request();
    runHandOffs();
    assertThat(recorder.told).containsExactly("open", "a", "close 1000");
    assertThat(closeActions).hasValue(1);
  }

  @Test
  void aReaderTooFarBehindAfterTheReplayHasItsWatchEnded() {
    Recorder recorder = new Recorder();
    recorder.asksForMore = false;
    InMemoryWatchSocket socket = socket(recorder, 10);
    AtomicInteger closeActions = new AtomicInteger();
    socket.onClosed(closeActions::incrementAndGet);
    String replayed = "r".repeat(37);
    socket.send(replayed);
    socket.replayDone(); // from now on at most 37 + 10 characters wait to be read
    socket.send("12345678");
    runHandOffs();
    String large = "x".repeat(30);
    socket.send(large); // 8 + 30 wait
    runHandOffs();
    assertThat(closeActions).hasValue(0);
    socket.send("abcdefghij"); // 48 would wait
    assertThat(closeActions).as("run on a hand-off thread").hasValue(0);
    runHandOffs();
    assertThat(closeActions).hasValue(1);
    for (int i = 0; i < 3; i++) {
      socket.request();
    }
    runHandOffs();
    assertThat(recorder.told).containsExactly("open", replayed, "12345678", large, "close 1000");
  }

  @Test
  void closingAfterTheServerStoppedItsHandOffThreadsIsQuiet() {
    Recorder recorder = new Recorder();
    InMemoryWatchSocket socket =
        new InMemoryWatchSocket(
            recorder,
            task -> {
              throw new RejectedExecutionException("stopped");
            },
            1024);
    socket.open();
    socket.send("a");
    assertThat(socket.sendClose(1000, "client closing")).isTrue();
    socket.end();
    assertThat(recorder.told).isEmpty();
  }
}
