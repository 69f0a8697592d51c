package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A quantity map as read from the API server: the well-formed entries, plus the entries that were
 * not whole numbers kept aside as written. An API server without schema validation can hand us
 * {@code 0.5} or {@code "500m"}; read strictly, one such job would fail the whole informer list,
 * read leniently it would silently become 0. Kept aside, it is rejected with a message instead.
 */
public class QuantityMap extends LinkedHashMap<String, Long> {

  @JsonIgnore private final Map<String, JsonNode> malformed = new LinkedHashMap<>();

  /** Entries whose value was not a whole number, as written (never serialized back). */
  @JsonIgnore
  public Map<String, JsonNode> malformed() {
    return malformed;
  }
}
