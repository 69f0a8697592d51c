package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A list of one resource (GET on its collection), answered from the text the objects were committed
 * as.
 *
 * <p>Why from the text: the controller's informer lists every BatchJob at each start. Read into
 * trees and written out again, a list of 21,000 jobs cost the server seconds of processor time
 * while the controller started. An object whose committed text is already what the list serves (not
 * an Event, and its first field the {@code apiVersion} asked for) is copied into the answer as it
 * is; any other object is read and served as a get serves it ({@link ServedObjects#view}).
 * Selectors are decided on the object read, after a look at its text for the values a field
 * selector needs ({@link FieldSelectors#mayMatchText}).
 */
final class ListReads {

  private static final byte[] ITEMS = ",\"items\":[".getBytes(StandardCharsets.UTF_8);
  private static final byte[] END = "]}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] COMMA = {','};

  private final ObjectStore store;
  private final ObjectMapper json;
  private final TableRenderer tables;

  ListReads(ObjectStore store, ObjectMapper json, TableRenderer tables) {
    this.store = store;
    this.json = json;
    this.tables = tables;
  }

  ApiResponse list(ApiRequest req, RequestPath p, ResourceType type) {
    ListPage.checkResourceVersion(req.param("resourceVersion"));
    ObjectStore.TextListing snapshot =
        store.listText(
            type.storageKey(), type.namespaced() ? p.namespace() : null, ListPage.startAfter(req));
    ListPage page = ListPage.of(req, snapshot, selection(req, type, p.version()));
    if (TableRenderer.wantsTable(req.accept())) {
      List<ObjectNode> items =
          page.items().stream().map(t -> served(type, p.version(), t)).toList();
      ObjectNode table =
          tables.table(
              type, p.version(), items, req.param("includeObject"), page.resourceVersion());
      page.describe(table.withObjectProperty("metadata"));
      return json(table);
    }
    ObjectNode envelope = json.createObjectNode();
    envelope.put("kind", type.kind() + "List").put("apiVersion", type.apiVersion(p.version()));
    page.describe(envelope.putObject("metadata"));
    String head = write(envelope);
    String asServed =
        "{\"apiVersion\":"
            + write(json.getNodeFactory().textNode(type.apiVersion(p.version())))
            + ",";
    // the envelope's fields, then the items: the document a tree of them would be written as,
    // written in pieces (AnswerBody). Its length is computed first (the Content-Length). A stored
    // text is served as it is, unpacked only as it is written; one that must be converted (Events,
    // another version) is converted for its length and again when it is written, rather than held
    // converted until then.
    byte[] asServedBytes = asServed.getBytes(StandardCharsets.UTF_8);
    Predicate<byte[]> asStored =
        packed -> !EventVersions.isEvent(type) && CompactText.startsWith(packed, asServedBytes);
    Function<byte[], byte[]> answered =
        packed ->
            asStored.test(packed)
                ? CompactText.utf8(packed)
                : write(served(type, p.version(), packed)).getBytes(StandardCharsets.UTF_8);
    List<byte[]> items = page.items();
    byte[] start = head.substring(0, head.length() - 1).getBytes(StandardCharsets.UTF_8);
    long size = start.length + ITEMS.length + END.length + Math.max(0, items.size() - 1);
    for (byte[] item : items) {
      size +=
          asStored.test(item)
              ? CompactText.utf8Length(item)
              : utf8Length(write(served(type, p.version(), item)));
    }
    byte[] opening = concat(start, ITEMS);
    return new ApiResponse(
        200,
        "application/json",
        new AnswerBody.InPieces(size, () -> new ListPieces(opening, items, answered)),
        List.of());
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }

  /**
   * A list's document in pieces of about {@link AnswerBody.InPieces#PIECE_BYTES}: its head, the
   * items between commas, its end. An item larger than a piece is a piece of its own.
   */
  private static final class ListPieces implements Iterator<byte[]> {
    private final byte[] head;
    private final List<byte[]> items;
    private final Function<byte[], byte[]> answered;
    private boolean headGiven;
    private int item;
    private boolean commaDue;
    private boolean endGiven;

    /** A part read but left for the next piece, which it would have overfilled. */
    private byte[] carried;

    ListPieces(byte[] head, List<byte[]> items, Function<byte[], byte[]> answered) {
      this.head = head;
      this.items = items;
      this.answered = answered;
    }

    @Override
    public boolean hasNext() {
      return carried != null || !endGiven;
    }

    @Override
    public byte[] next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      byte[] piece = new byte[AnswerBody.InPieces.PIECE_BYTES];
      int filled = 0;
      while (carried != null || !endGiven) {
        byte[] part = carried != null ? carried : nextPart();
        carried = null;
        if (part.length > piece.length && filled == 0) {
          return part;
        }
        if (filled + part.length > piece.length) {
          carried = part;
          break;
        }
        System.arraycopy(part, 0, piece, filled, part.length);
        filled += part.length;
      }
      return Arrays.copyOf(piece, filled);
    }

    private byte[] nextPart() {
      if (!headGiven) {
        headGiven = true;
        return head;
      }
      if (item < items.size()) {
        if (commaDue) {
          commaDue = false;
          return COMMA;
        }
        commaDue = true;
        return answered.apply(items.get(item++));
      }
      endGiven = true;
      return END;
    }
  }

  /** The length of {@code s} in UTF-8, without encoding it. */
  static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        n += 1; // a lone surrogate is encoded as '?' (stored texts hold none: CommitGuard)
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** Whether a committed text is selected by the request's label and field selectors. */
  private Predicate<String> selection(ApiRequest req, ResourceType type, String version) {
    String labels = req.param("labelSelector");
    String fields = req.param("fieldSelector");
    // both parsed first: a malformed selector is refused even when no object is stored
    Predicate<JsonNode> matches =
        Selectors.labels(labels).and(FieldSelectors.of(fields, type, version));
    if (blank(labels) && blank(fields)) {
      return text -> true;
    }
    Predicate<String> mayMatch = FieldSelectors.mayMatchText(fields, type);
    return text -> mayMatch.test(text) && matches.test(store.parse(text));
  }

  private ObjectNode served(ResourceType type, String version, byte[] packed) {
    return ServedObjects.view(type, version, store.parse(packed));
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private String write(JsonNode node) {
    try {
      return json.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a list", e);
    }
  }

  private ApiResponse json(JsonNode body) {
    return new ApiResponse(200, "application/json", write(body).getBytes(StandardCharsets.UTF_8));
  }
}
