package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The one rule every commit passes, whatever request made the object (POST, PUT, each patch type,
 * server-side apply, the server's own writes) and again for every row read at start-up: nothing is
 * stored that the rest of the product cannot read back.
 *
 * <p>It checks what a real API server checks on every write (names, namespace, label and annotation
 * syntax, the 256 KiB annotation budget, finalizer names, the 1.5 MiB object limit of etcd), plus a
 * nesting depth that the product's own JSON readers (Jackson, at most 1,000 levels, also inside
 * list and watch envelopes) can always read, and finally serializes the object and reads it back
 * with a reader of default limits, refusing anything that does not come back equal. Lone UTF-16
 * surrogates are replaced with U+FFFD first, as a real server's JSON decoder does, so what is
 * acknowledged is what a restart serves.
 */
final class CommitGuard {

  /** etcd's default request limit ({@code --max-request-bytes}), which bounds a stored object. */
  static final int MAX_OBJECT_BYTES = 1_572_864;

  /** Levels of nesting an object may have (envelopes add at most three; Jackson reads 1,000). */
  static final int MAX_DEPTH = 512;

  /** A real server's limit on the sum of annotation keys and values. */
  static final int MAX_ANNOTATION_BYTES = 256 * 1024;

  /**
   * Kubernetes' DNS-1123 label and subdomain, as apimachinery checks names. Written here rather
   * than taken from the product's {@code vocabulary.ResourceNames}, which holds the same texts,
   * because the server lends nothing from the product; a test holds the two equal.
   */
  static final String DNS_LABEL_REGEX = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  static final String DNS_SUBDOMAIN_REGEX =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  private static final Pattern DNS_LABEL = Pattern.compile(DNS_LABEL_REGEX);
  private static final Pattern DNS_SUBDOMAIN = Pattern.compile(DNS_SUBDOMAIN_REGEX);
  private static final Pattern QUALIFIED_NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final String QUALIFIED_NAME_RULE =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end"
          + " with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex"
          + " used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

  /** A reader with Jackson's default limits: what every client of the product reads with. */
  private final ObjectMapper reader = new ObjectMapper();

  private final ObjectMapper json;
  private final Function<String, ResourceType> types;

  /**
   * @param types the served resource for a storage key, for the messages (may answer null)
   */
  CommitGuard(ObjectMapper json, Function<String, ResourceType> types) {
    this.json = json;
    this.types = types;
  }

  /**
   * Checks an object about to be stored under {@code resource/namespace/name} and returns its
   * serialized form; may replace lone surrogates in it.
   *
   * @throws ApiException 422 naming the field, or 413 when the object is too large
   */
  String check(String resource, String namespace, String name, ObjectNode object) {
    ResourceType type = types.apply(resource);
    List<ApiException.Cause> causes = shapeCauses(resource, namespace, name, object);
    if (!causes.isEmpty()) {
      throw refusal(type, resource, name, causes);
    }
    String text;
    try {
      text = json.writeValueAsString(object);
      // the text holds every key and string as written, so a lone surrogate anywhere shows in it
      if (hasLoneSurrogate(text)) {
        replaceLoneSurrogates(object);
        text = json.writeValueAsString(object);
      }
    } catch (JsonProcessingException e) {
      throw refusal(type, resource, name, List.of(unreadable(e)));
    }
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_OBJECT_BYTES) {
      throw new ApiException(
          413,
          "RequestEntityTooLarge",
          "Request entity too large: the object is "
              + bytes.length
              + " bytes stored; limit is "
              + MAX_OBJECT_BYTES);
    }
    try {
      // compared as text: a tree read back may hold other number node types for equal numbers
      if (!readBack(bytes).equals(text)) {
        throw refusal(
            type,
            resource,
            name,
            List.of(
                new ApiException.Cause(
                    "", "Invalid value: does not read back", "FieldValueInvalid")));
      }
    } catch (IOException e) {
      throw refusal(type, resource, name, List.of(unreadable(e)));
    }
    return text;
  }

  /**
   * Checks the text of a row read at start-up and returns the text to serve, or null when the row
   * is not a JSON object.
   *
   * <p>A commit serialized every stored text and read it back, so a row as a commit wrote it is
   * served as it is: read once here with the reader of default limits, and its metadata, size and
   * depth checked again. A row that reader refuses, or one holding an escaped character (which a
   * commit may have had to rewrite), is checked as a new commit is ({@link #check}). Why: writing
   * out and reading back each of 21,000 rows again was a third of the server's start.
   *
   * @throws JsonProcessingException when the text is not JSON at all
   * @throws ApiException as {@link #check} does
   */
  String checkStored(String resource, String namespace, String name, String text)
      throws JsonProcessingException {
    if (text.indexOf("\\u") < 0) {
      JsonNode read;
      try {
        read = reader.readTree(text);
      } catch (JsonProcessingException e) {
        read = null; // the full check below says why
      }
      if (read instanceof ObjectNode object
          && shapeCauses(resource, namespace, name, object).isEmpty()
          && text.getBytes(StandardCharsets.UTF_8).length <= MAX_OBJECT_BYTES) {
        return text;
      }
    }
    JsonNode node = json.readTree(text);
    return node instanceof ObjectNode object ? check(resource, namespace, name, object) : null;
  }

  /**
   * What is wrong with the object before it is serialized: its metadata, a ConfigMap's or Secret's
   * total size, and its depth. Both a new commit and a stored row are checked for these.
   */
  private static List<ApiException.Cause> shapeCauses(
      String resource, String namespace, String name, ObjectNode object) {
    List<ApiException.Cause> causes = metadataCauses(resource, namespace, name, object);
    ConfigValueSize.check(resource, object).ifPresent(causes::add);
    int depth = depth(object, 0);
    if (depth > MAX_DEPTH) {
      causes.add(
          new ApiException.Cause(
              "",
              "Too deep: the object nests "
                  + depth
                  + " levels; at most "
                  + MAX_DEPTH
                  + " are stored. Flatten the structure.",
              "FieldValueTooLong"));
    }
    return causes;
  }

  /**
   * The text a client of default limits reads {@code bytes} as and writes back: every token parsed
   * and written again, as reading a tree and writing it would (the same number types, the same
   * limits), without building the tree.
   */
  private String readBack(byte[] bytes) throws IOException {
    StringWriter out = new StringWriter(bytes.length);
    try (JsonParser parser = reader.getFactory().createParser(bytes);
        JsonGenerator generator = reader.getFactory().createGenerator(out)) {
      while (parser.nextToken() != null) {
        generator.copyCurrentEvent(parser);
      }
    }
    return out.toString();
  }

  /**
   * What is wrong with the object's metadata (name, namespace, labels, annotations, finalizers, and
   * the type of every other field: {@link MetadataShapes}), as the real server finds it before it
   * looks at the rest of the object.
   */
  static List<ApiException.Cause> metadataCauses(
      String resource, String namespace, String name, ObjectNode object) {
    List<ApiException.Cause> causes = new ArrayList<>();
    JsonNode meta = object.path("metadata");
    boolean isNamespace = resource.equals("/namespaces");
    checkName(causes, "metadata.name", name, isNamespace);
    if (!name.equals(meta.path("name").asText(null))) {
      causes.add(invalid("metadata.name", meta.path("name").toString(), "must match the URL"));
    }
    if (!namespace.isEmpty()) {
      checkName(causes, "metadata.namespace", namespace, true);
      if (!namespace.equals(meta.path("namespace").asText(null))) {
        causes.add(invalid("metadata.namespace", meta.path("namespace").toString(), "must match"));
      }
    }
    checkLabels(causes, meta.get("labels"));
    checkAnnotations(causes, meta.get("annotations"));
    checkFinalizers(causes, meta.get("finalizers"));
    MetadataShapes.check(object.get("metadata"), causes);
    return causes;
  }

  private static ApiException.Cause unreadable(Exception e) {
    return new ApiException.Cause(
        "",
        "Invalid value: cannot be stored and read back: " + e.getMessage(),
        "FieldValueInvalid");
  }

  private static ApiException refusal(
      ResourceType type, String resource, String name, List<ApiException.Cause> causes) {
    if (type != null) {
      return ApiException.invalid(type, name, causes);
    }
    return new ApiException(
        422, "Invalid", resource + " \"" + name + "\" is invalid: " + causes, null, name, causes);
  }

  private static ApiException.Cause invalid(String field, String value, String rule) {
    return new ApiException.Cause(
        field, "Invalid value: " + shorten(value) + ": " + rule, "FieldValueInvalid");
  }

  private static String shorten(String value) {
    return value.length() > 1024
        ? "\"" + value.substring(0, 60) + "...\" (" + value.length() + " characters)"
        : "\"" + value + "\"";
  }

  /** The real server's IsDNS1123Label / IsDNS1123Subdomain: one cause per broken rule. */
  private static void checkName(
      List<ApiException.Cause> causes, String field, String name, boolean label) {
    int max = label ? 63 : 253;
    if (name.length() > max) {
      causes.add(invalid(field, name, "must be no more than " + max + " characters"));
    }
    if (!(label ? DNS_LABEL : DNS_SUBDOMAIN).matcher(name).matches()) {
      causes.add(
          invalid(
              field,
              name,
              label
                  ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters"
                      + " or '-', and must start and end with an alphanumeric character (e.g."
                      + " 'my-name',  or '123-abc', regex used for validation is"
                      + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
                  : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric"
                      + " characters, '-' or '.', and must start and end with an alphanumeric"
                      + " character (e.g. 'example.com', regex used for validation is"
                      + " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
    }
  }

  /** Adds a cause when {@code key} is not a qualified name ({@code [prefix/]name}). */
  private static void checkQualifiedName(
      List<ApiException.Cause> causes, String field, String key) {
    String prefix = null;
    String part = key;
    int slash = key.indexOf('/');
    if (slash >= 0) {
      prefix = key.substring(0, slash);
      part = key.substring(slash + 1);
    }
    if (prefix != null && (prefix.isEmpty() || prefix.length() > 253)) {
      causes.add(invalid(field, key, "prefix part must be 1 to 253 characters"));
    } else if (prefix != null && !DNS_SUBDOMAIN.matcher(prefix).matches()) {
      causes.add(invalid(field, key, "prefix part must be a lowercase RFC 1123 subdomain"));
    } else if (part.isEmpty() || part.length() > 63) {
      causes.add(invalid(field, key, "name part must be 1 to 63 characters"));
    } else if (!QUALIFIED_NAME_PART.matcher(part).matches()) {
      causes.add(invalid(field, key, QUALIFIED_NAME_RULE));
    }
  }

  private static void checkLabels(List<ApiException.Cause> causes, JsonNode labels) {
    if (labels == null || labels.isNull()) {
      return;
    }
    if (!labels.isObject()) {
      causes.add(invalid("metadata.labels", labels.getNodeType().toString(), "must be a map"));
      return;
    }
    for (Map.Entry<String, JsonNode> e : labels.properties()) {
      checkQualifiedName(causes, "metadata.labels", e.getKey());
      JsonNode v = e.getValue();
      if (!v.isTextual()) {
        causes.add(invalid("metadata.labels", v.toString(), "label values must be strings"));
      } else if (v.asText().length() > 63) {
        causes.add(invalid("metadata.labels", v.asText(), "must be no more than 63 characters"));
      } else if (!v.asText().isEmpty() && !QUALIFIED_NAME_PART.matcher(v.asText()).matches()) {
        causes.add(
            invalid(
                "metadata.labels",
                v.asText(),
                "a valid label must be an empty string or consist of alphanumeric characters,"
                    + " '-', '_' or '.', and must start and end with an alphanumeric character"));
      }
    }
  }

  private static void checkAnnotations(List<ApiException.Cause> causes, JsonNode annotations) {
    if (annotations == null || annotations.isNull()) {
      return;
    }
    if (!annotations.isObject()) {
      causes.add(invalid("metadata.annotations", annotations.getNodeType().toString(), "map"));
      return;
    }
    long total = 0;
    for (Map.Entry<String, JsonNode> e : annotations.properties()) {
      checkQualifiedName(causes, "metadata.annotations", e.getKey());
      if (!e.getValue().isTextual()) {
        causes.add(invalid("metadata.annotations", e.getValue().toString(), "must be a string"));
      }
      total += e.getKey().length() + e.getValue().asText().length();
    }
    if (total > MAX_ANNOTATION_BYTES) {
      causes.add(
          new ApiException.Cause(
              "metadata.annotations",
              "Too long: may not be more than " + MAX_ANNOTATION_BYTES + " bytes",
              "FieldValueTooLong"));
    }
  }

  private static void checkFinalizers(List<ApiException.Cause> causes, JsonNode finalizers) {
    if (finalizers == null || finalizers.isNull()) {
      return;
    }
    if (!finalizers.isArray()) {
      causes.add(invalid("metadata.finalizers", finalizers.toString(), "must be a list"));
      return;
    }
    for (int i = 0; i < finalizers.size(); i++) {
      JsonNode f = finalizers.get(i);
      if (!f.isTextual()) {
        causes.add(invalid("metadata.finalizers[" + i + "]", f.toString(), "must be a string"));
      } else {
        checkQualifiedName(causes, "metadata.finalizers[" + i + "]", f.asText());
      }
    }
  }

  /** Depth of a tree, iteratively deep enough to stop counting past the limit. */
  static int depth(JsonNode node, int above) {
    if (!node.isContainerNode()) {
      return above;
    }
    int here = above + 1;
    if (here > MAX_DEPTH) {
      return here;
    }
    int max = here;
    for (JsonNode child : node) {
      max = Math.max(max, depth(child, here));
      if (max > MAX_DEPTH) {
        break;
      }
    }
    return max;
  }

  /** Replaces unpaired surrogates in keys and values with U+FFFD, in place. */
  static void replaceLoneSurrogates(JsonNode node) {
    if (node instanceof ObjectNode o) {
      List<String> renamed = new ArrayList<>();
      Iterator<Map.Entry<String, JsonNode>> it = o.properties().iterator();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (hasLoneSurrogate(e.getKey())) {
          renamed.add(e.getKey());
        }
        replaceChild(o, e.getKey(), e.getValue());
      }
      for (String key : renamed) {
        o.set(wellFormed(key), o.remove(key));
      }
    } else if (node instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        JsonNode v = a.get(i);
        if (v.isTextual() && hasLoneSurrogate(v.asText())) {
          a.set(i, TextNode.valueOf(wellFormed(v.asText())));
        } else {
          replaceLoneSurrogates(v);
        }
      }
    }
  }

  private static void replaceChild(ObjectNode parent, String key, JsonNode v) {
    if (v.isTextual() && hasLoneSurrogate(v.asText())) {
      parent.put(key, wellFormed(v.asText()));
    } else {
      replaceLoneSurrogates(v);
    }
  }

  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  private static String wellFormed(String s) {
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        out.append(c).append(s.charAt(++i));
      } else {
        out.append(Character.isSurrogate(c) ? '\uFFFD' : c);
      }
    }
    return out.toString();
  }
}
