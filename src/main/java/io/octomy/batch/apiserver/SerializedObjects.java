package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The JSON text of stored objects recently written out, by identity. A committed write is sent to
 * every open watch of its resource (the controller's, the agent's, kubectl's) and answered to its
 * writer: the same stored object, which was serialized once for each of them. Now the first
 * serializes it and the others reuse the text.
 *
 * <p>Only objects that are stored may be passed here: the store never changes an object once it
 * holds it ({@link ObjectStore}), so the text of an identical reference stays right. A slot holds
 * the last object that hashed to it; a miss serializes again, so the table bounds memory, not
 * correctness.
 */
final class SerializedObjects {

  /** Slots: more than a group commit's batch of writes, whose watch events and answers share it. */
  private static final int SLOTS = 512;

  /**
   * Texts longer than this are not kept (nor their trees): a slot holds an object twice, as tree
   * and as text, and 512 slots of ConfigMaps near their 1 MiB limit would pin a gigabyte; a job is
   * a few KiB, and serializing a large object again costs little beside sending it.
   */
  static final int LARGEST_KEPT = 16 * 1024;

  private record Slot(ObjectNode object, String text) {}

  private final AtomicReferenceArray<Slot> slots = new AtomicReferenceArray<>(SLOTS);
  private final ObjectMapper json;

  SerializedObjects(ObjectMapper json) {
    this.json = json;
  }

  /** {@code stored} as JSON, serialized at most once while it stays in its slot. */
  String text(ObjectNode stored) {
    Slot kept = slots.get(slotOf(stored));
    if (kept != null && kept.object() == stored) {
      return kept.text();
    }
    String text = serialize(stored);
    remember(stored, text);
    return text;
  }

  /**
   * Keeps {@code text} as the text of {@code stored}: what serializing it with this mapper gives,
   * as the text a store commits for an object is ({@link CommitGuard#check}).
   */
  void remember(ObjectNode stored, String text) {
    if (text.length() <= LARGEST_KEPT) {
      slots.set(slotOf(stored), new Slot(stored, text));
    }
  }

  private static int slotOf(ObjectNode stored) {
    return System.identityHashCode(stored) & (SLOTS - 1);
  }

  /**
   * One watch event line, {@code {"type":TYPE,"object":OBJECT}} and a newline: what serializing
   * that envelope gives, with the object's text reused.
   */
  String watchLine(String type, ObjectNode stored) {
    String text = text(stored);
    return new StringBuilder(text.length() + type.length() + 24)
        .append("{\"type\":\"")
        .append(type)
        .append("\",\"object\":")
        .append(text)
        .append("}\n")
        .toString();
  }

  private String serialize(ObjectNode object) {
    try {
      return json.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize an object tree", e);
    }
  }
}
