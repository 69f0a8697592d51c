package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Predicate;

/**
 * One page of a list ({@code limit} and {@code continue}), as a real server pages: objects in key
 * order (namespace, then name), and a continue token that names the list's resourceVersion and the
 * key to go on after. The next page is read from the objects as they are then (a real server reads
 * it at the token's version); items are never repeated or skipped, but one created or deleted
 * between pages may or may not be seen.
 *
 * @param items the objects of this page, as committed, in compact form ({@link CompactText})
 * @param resourceVersion the list's version (the first page's, for every page)
 * @param next the continue token, or {@code null} on the last page
 * @param remaining objects after this page when known, else {@code null}
 */
record ListPage(List<byte[]> items, long resourceVersion, String next, Long remaining) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code resourceVersion} of a get or list must be a number (or absent). */
  static void checkResourceVersion(String rv) {
    if (rv != null && !rv.isEmpty()) {
      try {
        Long.parseUnsignedLong(rv);
      } catch (NumberFormatException e) {
        throw ApiException.badRequest(
            "resourceVersion: Invalid value: \"" + rv + "\": must be a whole number");
      }
    }
  }

  /**
   * The key a request's page starts after ({@code null}: the first page), from its continue token.
   *
   * @throws ApiException 400 when the token was not made by this server
   */
  static String startAfter(ApiRequest req) {
    String token = req.param("continue");
    return token == null || token.isEmpty() ? null : decode(token).path("start").asText();
  }

  /**
   * @param snapshot the objects from the page's start on, or all of them
   * @param selected whether an object's committed text is in the list (its selectors)
   */
  static ListPage of(ApiRequest req, ObjectStore.TextListing snapshot, Predicate<String> selected) {
    long limit = limit(req.param("limit"));
    String token = req.param("continue");
    long rv = snapshot.resourceVersion();
    String after = null;
    if (token != null && !token.isEmpty()) {
      JsonNode t = decode(token);
      rv = t.path("rv").asLong();
      after = t.path("start").asText();
    }
    boolean selectors = req.param("labelSelector") != null || req.param("fieldSelector") != null;
    List<byte[]> items = new ArrayList<>();
    String last = null;
    long remaining = 0;
    // an object's text is unpacked only to be selected (and later as it is written): without
    // selectors every object is in the list, and past a page counted by its key alone
    for (ObjectIndex.ListedText o : snapshot.items()) {
      String key = o.key();
      if (after != null && key.compareTo(after) <= 0) {
        continue;
      }
      boolean full = limit > 0 && items.size() >= limit;
      if (full && !selectors) {
        remaining++;
        continue;
      }
      if (selectors && !selected.test(o.text())) {
        continue;
      }
      if (full) {
        remaining++; // one more selected object is enough to know a next page exists
        break;
      }
      items.add(o.packed());
      last = key;
    }
    if (remaining == 0) {
      return new ListPage(items, rv, null, null);
    }
    return new ListPage(items, rv, encode(rv, last), selectors ? null : remaining);
  }

  /** Writes resourceVersion, continue and remainingItemCount into a list's metadata. */
  void describe(ObjectNode metadata) {
    metadata.put("resourceVersion", Long.toString(resourceVersion));
    if (next != null) {
      metadata.put("continue", next);
    }
    if (remaining != null) {
      metadata.put("remainingItemCount", remaining);
    }
  }

  private static long limit(String limit) {
    if (limit == null || limit.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(limit);
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("limit: Invalid value: \"" + limit + "\": must be a number");
    }
  }

  private static String encode(long rv, String start) {
    ObjectNode t = JSON.createObjectNode();
    t.put("v", "meta.k8s.io/v1").put("rv", rv).put("start", start);
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(t.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static JsonNode decode(String token) {
    try {
      JsonNode t = JSON.readTree(Base64.getUrlDecoder().decode(token));
      if (t != null
          && "meta.k8s.io/v1".equals(t.path("v").asText())
          && t.path("rv").canConvertToLong()
          && t.path("start").isTextual()) {
        return t;
      }
    } catch (IOException | IllegalArgumentException e) {
      // answered below
    }
    throw ApiException.badRequest(
        "continue key is not valid: the continue token was not made by this server;"
            + " list again without it");
  }
}
