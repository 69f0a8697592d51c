package io.octomy.batch.standalone;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
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
        store.listText(type.storageKey(), type.namespaced() ? p.namespace() : null);
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
    // text is served as it is; one that must be converted (Events, another version) is converted
    // for its length and again when it is written, rather than held converted until then.
    Function<String, String> answered =
        text ->
            !EventVersions.isEvent(type) && text.startsWith(asServed)
                ? text
                : write(served(type, p.version(), text));
    List<String> items = page.items();
    byte[] start = head.substring(0, head.length() - 1).getBytes(StandardCharsets.UTF_8);
    long size = start.length + ITEMS.length + END.length + Math.max(0, items.size() - 1);
    for (String item : items) {
      size += utf8Length(answered.apply(item));
    }
    return new ApiResponse(
        200,
        "application/json",
        new AnswerBody.InPieces(
            size,
            out -> {
              Pieces pieces = new Pieces(out);
              pieces.add(start);
              pieces.add(ITEMS);
              boolean first = true;
              for (String item : items) {
                if (!first) {
                  pieces.add(COMMA);
                }
                first = false;
                pieces.add(answered.apply(item).getBytes(StandardCharsets.UTF_8));
              }
              pieces.add(END);
              pieces.flush();
            }),
        List.of());
  }

  /** Gathers small byte arrays into pieces of about {@link AnswerBody.InPieces#PIECE_BYTES}. */
  private static final class Pieces {
    private final Consumer<byte[]> out;
    private final byte[] piece = new byte[AnswerBody.InPieces.PIECE_BYTES];
    private int filled;

    Pieces(Consumer<byte[]> out) {
      this.out = out;
    }

    void add(byte[] bytes) {
      if (filled + bytes.length > piece.length) {
        flush();
      }
      if (bytes.length > piece.length) {
        out.accept(bytes); // one object larger than a piece goes as it is
        return;
      }
      System.arraycopy(bytes, 0, piece, filled, bytes.length);
      filled += bytes.length;
    }

    void flush() {
      if (filled > 0) {
        out.accept(Arrays.copyOf(piece, filled));
        filled = 0;
      }
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

  private ObjectNode served(ResourceType type, String version, String text) {
    return ServedObjects.view(type, version, store.parse(text));
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
