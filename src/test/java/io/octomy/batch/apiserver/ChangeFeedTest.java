package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the kept history holds against its limit of bytes, and receivers that fail on an event. */
class ChangeFeedTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RESOURCE = "/configmaps";

  private static ObjectNode parse(String text) {
    try {
      return (ObjectNode) JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode parse(byte[] packed) {
    return parse(CompactText.unpack(packed));
  }

  private static final Random RANDOM = new Random(7);

  /**
   * An object's text of {@code length} characters that deflating hardly shortens (random letters
   * and digits), so that what the history holds of it is about its length.
   */
  private static String text(int length) {
    String head = "{\"v\":\"";
    StringBuilder s = new StringBuilder(head);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    while (s.length() < length - 2) {
      s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return s.append("\"}").toString();
  }

  private static void modified(ChangeFeed feed, long version, String text, String before) {
    feed.publish(
        new ObjectStore.Event(
            ObjectStore.EventType.MODIFIED,
            RESOURCE,
            "default",
            version,
            parse(text),
            ObjectStore.PreviousObject.of(CompactText.pack(before), ChangeFeedTest::parse),
            text.length()),
        CompactText.pack(text),
        CompactText.pack(before));
  }

  private static final ObjectStore.Watcher ANY = EveryEvent.IGNORED;

  @Test
  void aModifiedEventCountsTheObjectBeforeItToo() {
    ChangeFeed feed = new ChangeFeed((byte[] b) -> parse(b), 100, 1_000, 0);
    modified(feed, 1, text(400), text(400));
    assertThatCode(() -> feed.replay(0, RESOURCE, null, ANY)).doesNotThrowAnyException();

    modified(feed, 2, text(400), text(400));

    // about 1,300 bytes held (four texts of 400 characters, packed): the oldest event went, and a
    // watch from before it must relist
    assertThatThrownBy(() -> feed.replay(0, RESOURCE, null, ANY))
        .isInstanceOf(ObjectStore.GoneException.class);
    assertThatCode(() -> feed.replay(1, RESOURCE, null, ANY)).doesNotThrowAnyException();
  }

  /** Records the versions it is sent; throws on those listed. */
  private static class Receiver implements ObjectStore.Watcher {
    final List<Long> seen = new ArrayList<>();
    final List<Long> failOn;
    final boolean failInMatches;

    Receiver(boolean failInMatches, Long... failOn) {
      this.failInMatches = failInMatches;
      this.failOn = List.of(failOn);
    }

    @Override
    public boolean matches(ObjectStore.Event e) {
      if (failInMatches && failOn.contains(e.resourceVersion())) {
        throw new IllegalStateException("cannot match " + e.resourceVersion());
      }
      return true;
    }

    @Override
    public void send(ObjectStore.Event e) {
      if (!failInMatches && failOn.contains(e.resourceVersion())) {
        throw new IllegalStateException("cannot send " + e.resourceVersion());
      }
      seen.add(e.resourceVersion());
    }
  }

  @Test
  void aWatchThatFailsOnAnEventIsEndedOnceAndTheOthersStillReceiveIt() {
    ChangeFeed feed = new ChangeFeed((byte[] b) -> parse(b), 100, 1_000_000, 0);
    Receiver before = new Receiver(false);
    Receiver failing = new Receiver(false, 2L);
    Receiver failingToMatch = new Receiver(true, 3L);
    Receiver after = new Receiver(false);
    AtomicInteger failingEnded = new AtomicInteger();
    AtomicInteger failingToMatchEnded = new AtomicInteger();
    AtomicInteger othersEnded = new AtomicInteger();
    feed.open(before, othersEnded::incrementAndGet);
    feed.open(failing, failingEnded::incrementAndGet);
    feed.open(failingToMatch, failingToMatchEnded::incrementAndGet);
    feed.open(after, othersEnded::incrementAndGet);

    for (long v = 1; v <= 4; v++) {
      modified(feed, v, text(100), text(100));
    }

    assertThat(before.seen).containsExactly(1L, 2L, 3L, 4L);
    assertThat(after.seen).containsExactly(1L, 2L, 3L, 4L);
    assertThat(failing.seen).containsExactly(1L);
    assertThat(failingEnded).hasValue(1);
    assertThat(failingToMatch.seen).containsExactly(1L, 2L);
    assertThat(failingToMatchEnded).hasValue(1);
    assertThat(othersEnded).hasValue(0);
    // the events were kept all the same: a watch from version 0 replays every one
    Receiver replayed = new Receiver(false);
    assertThatCode(() -> feed.replay(0, RESOURCE, null, replayed)).doesNotThrowAnyException();
    assertThat(replayed.seen).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aWatchWhoseEndFailsTooIsStillDroppedAndTheOthersStillReceive() {
    ChangeFeed feed = new ChangeFeed((byte[] b) -> parse(b), 100, 1_000_000, 0);
    Receiver failing = new Receiver(false, 1L);
    Receiver other = new Receiver(false);
    feed.open(
        failing,
        () -> {
          throw new IllegalStateException("connection already gone");
        });
    feed.open(other, () -> {});

    modified(feed, 1, text(100), text(100));
    modified(feed, 2, text(100), text(100));

    assertThat(failing.seen).isEmpty();
    assertThat(other.seen).containsExactly(1L, 2L);
  }

  @Test
  void aListenerThatFailsOnAnEventStaysAndListenersHearBeforeWatches() {
    ChangeFeed feed = new ChangeFeed((byte[] b) -> parse(b), 100, 1_000_000, 0);
    List<String> order = new ArrayList<>();
    Receiver watch =
        new Receiver(false) {
          @Override
          public void send(ObjectStore.Event e) {
            order.add("watch " + e.resourceVersion());
          }
        };
    feed.open(watch, () -> {});
    Receiver listener =
        new Receiver(false, 1L) {
          @Override
          public void send(ObjectStore.Event e) {
            super.send(e);
            order.add("listener " + e.resourceVersion());
          }
        };
    feed.listen(listener);

    modified(feed, 1, text(100), text(100));
    modified(feed, 2, text(100), text(100));

    assertThat(listener.seen).containsExactly(2L);
    assertThat(order).containsExactly("watch 1", "listener 2", "watch 2");
  }
}
