package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a body once, token by token, against a {@link FieldModel} and lists in document order the
 * fields the model does not know and the keys an object holds twice: what a real API server's
 * strict decoding finds. It reads the raw body (a parsed tree has already lost the duplicates).
 */
final class FieldScan {

  /**
   * One field a strict decoder would refuse.
   *
   * @param path where it is, e.g. {@code spec.template.spec.containers[0].foo}
   * @param key the field's own name
   * @param line the line of its key (1-based), for YAML's wording
   */
  record Finding(FindingKind kind, String path, String key, int line) {}

  enum FindingKind {
    UNKNOWN,
    DUPLICATE
  }

  private final List<Finding> findings = new ArrayList<>();
  private final Set<String> unknown = new HashSet<>();

  private FieldScan() {}

  /**
   * @param parser positioned before the body's first token
   * @return the findings in document order (an unknown path once, however often it occurs)
   * @throws IOException when the body is not well-formed (it has been parsed once already, so this
   *     is not expected)
   */
  static List<Finding> of(JsonParser parser, FieldModel model) throws IOException {
    FieldScan scan = new FieldScan();
    if (parser.nextToken() != null) {
      scan.value(parser, model, "");
    }
    return scan.findings;
  }

  private void value(JsonParser parser, FieldModel model, String path) throws IOException {
    JsonToken token = parser.currentToken();
    if (token == JsonToken.START_OBJECT) {
      Set<String> seen = new HashSet<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String key = parser.currentName();
        int line = parser.currentTokenLocation().getLineNr();
        String field = path.isEmpty() ? key : path + "." + key;
        if (!seen.add(key)) {
          findings.add(new Finding(FindingKind.DUPLICATE, field, key, line));
        }
        FieldModel child = model.field(key);
        parser.nextToken();
        if (child == null) {
          if (unknown.add(field)) {
            findings.add(new Finding(FindingKind.UNKNOWN, field, key, line));
          }
          parser.skipChildren();
        } else {
          value(parser, child, field);
        }
      }
    } else if (token == JsonToken.START_ARRAY) {
      int index = 0;
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        value(parser, model.item(), path + "[" + index++ + "]");
      }
    }
  }
}
