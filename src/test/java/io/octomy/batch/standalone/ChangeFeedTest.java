package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** What the kept history holds against its limit of bytes. */
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

  private static String text(int length) {
    String head = "{\"v\":\"";
    return head + "x".repeat(length - head.length() - 2) + "\"}";
  }

  private static void modified(ChangeFeed feed, long version, String text, String before) {
    feed.publish(
        new ObjectStore.Event(
            ObjectStore.EventType.MODIFIED,
            RESOURCE,
            "default",
            version,
            parse(text),
            ObjectStore.PreviousObject.of(before, ChangeFeedTest::parse),
            text.length()),
        text,
        before);
  }

  private static final ObjectStore.Watcher ANY =
      new ObjectStore.Watcher() {
        @Override
        public boolean matches(ObjectStore.Event e) {
          return true;
        }

        @Override
        public void send(ObjectStore.Event e) {}
      };

  @Test
  void aModifiedEventCountsTheObjectBeforeItToo() {
    ChangeFeed feed = new ChangeFeed(ChangeFeedTest::parse, 100, 1_000, 0);
    modified(feed, 1, text(400), text(400));
    assertThatCode(() -> feed.replay(0, RESOURCE, null, ANY)).doesNotThrowAnyException();

    modified(feed, 2, text(400), text(400));

    // 1,600 bytes held: the oldest event went, and a watch from before it must relist
    assertThatThrownBy(() -> feed.replay(0, RESOURCE, null, ANY))
        .isInstanceOf(ObjectStore.GoneException.class);
    assertThatCode(() -> feed.replay(1, RESOURCE, null, ANY)).doesNotThrowAnyException();
  }
}
