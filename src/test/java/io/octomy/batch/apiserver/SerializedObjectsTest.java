package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The text of a stored object is the one serializing it gives, whoever asks first. */
class SerializedObjectsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode job(String name) throws Exception {
    return (ObjectNode)
        JSON.readTree(
            "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\",\"metadata\":{"
                + "\"name\":\""
                + name
                + "\",\"labels\":{\"t\":\"\\u00e9\\ud83d\\ude00 \\\"q\\\" \\\\ \\n\"}},"
                + "\"spec\":{\"resources\":{\"requests\":{\"octomy.io/cpu-milli\":100}},"
                + "\"ratio\":0.25,\"big\":12345678901234,\"list\":[1,\"a\",null,true,{}]}}");
  }

  @Test
  void aWatchLineIsTheSerializedEnvelope() throws Exception {
    SerializedObjects texts = new SerializedObjects(JSON);
    ObjectNode stored = job("a");
    for (String type : new String[] {"ADDED", "MODIFIED", "DELETED"}) {
      ObjectNode envelope = JSON.createObjectNode();
      envelope.put("type", type);
      envelope.set("object", stored);
      assertThat(texts.watchLine(type, stored)).isEqualTo(JSON.writeValueAsString(envelope) + "\n");
    }
    assertThat(texts.text(stored)).isEqualTo(JSON.writeValueAsString(stored));
  }

  @Test
  void theTextIsKeptByIdentityNotByContent() throws Exception {
    SerializedObjects texts = new SerializedObjects(JSON);
    ObjectNode first = job("a");
    ObjectNode same = job("a");
    String text = texts.text(first);
    assertThat(texts.text(first)).isSameAs(text);
    assertThat(texts.text(same)).isEqualTo(text).isNotSameAs(text);
    ObjectNode other = job("b");
    assertThat(texts.text(other)).isEqualTo(JSON.writeValueAsString(other));
  }

  @Test
  void aLargeObjectsTextIsServedButNotKept() throws Exception {
    SerializedObjects texts = new SerializedObjects(JSON);
    ObjectNode large = job("large");
    large.withObjectProperty("data").put("b", "x".repeat(SerializedObjects.LARGEST_KEPT));
    String text = texts.text(large);
    assertThat(text).isEqualTo(JSON.writeValueAsString(large));
    assertThat(texts.text(large)).isEqualTo(text).isNotSameAs(text);
  }
}
