package io.octomy.batch.standalone;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
    // the envelope's fields, then the items: the document a tree of them would be written as
    ByteArrayOutputStream body = new ByteArrayOutputStream(head.length() + length(page.items()));
    body.writeBytes(head.substring(0, head.length() - 1).getBytes(StandardCharsets.UTF_8));
    body.writeBytes(ITEMS);
    String asServed =
        "{\"apiVersion\":"
            + write(json.getNodeFactory().textNode(type.apiVersion(p.version())))
            + ",";
    boolean first = true;
    for (String text : page.items()) {
      if (!first) {
        body.write(',');
      }
      first = false;
      String item =
          !EventVersions.isEvent(type) && text.startsWith(asServed)
              ? text
              : write(served(type, p.version(), text));
      body.writeBytes(item.getBytes(StandardCharsets.UTF_8));
    }
    body.writeBytes(END);
    return new ApiResponse(200, "application/json", body.toByteArray());
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

  private static int length(List<String> texts) {
    long n = 0;
    for (String t : texts) {
      n += t.length() + 1;
    }
    return (int) Math.min(n + 64, Integer.MAX_VALUE - 64);
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
