package io.octomy.batch.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import io.octomy.batch.vocabulary.Quantities;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;

/** Reads a quantity map without ever failing or rounding: see {@link QuantityMap}. */
public class QuantityMapDeserializer extends JsonDeserializer<Map<String, Long>> {

  private static final BigInteger MAX = BigInteger.valueOf(Quantities.MAX);

  @Override
  public Map<String, Long> deserialize(JsonParser p, DeserializationContext ctxt)
      throws IOException {
    JsonNode tree = p.readValueAsTree();
    QuantityMap out = new QuantityMap();
    if (tree == null || !tree.isObject()) {
      if (tree != null && !tree.isNull()) {
        out.malformed().put("", tree);
      }
      return out;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = tree.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v.isIntegralNumber()
          && v.bigIntegerValue().signum() >= 0
          && v.bigIntegerValue().compareTo(MAX) <= 0) {
        out.put(e.getKey(), v.longValue());
      } else {
        out.malformed().put(e.getKey(), v);
      }
    }
    return out;
  }
}
