package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code fieldValidation} query parameter, as kube-apiserver 1.34 answers it.
 *
 * <p>A body's unknown fields (see {@link FieldModels}) and duplicate keys are
 *
 * <ul>
 *   <li>with {@code Strict}: refused, 400 {@code BadRequest} "BatchJob in version "v1alpha1" cannot
 *       be handled as a BatchJob: strict decoding error: unknown field "spec.priority"" for a
 *       create or update, 422 {@code Invalid} on the field {@code patch} for a patch;
 *   <li>with {@code Warn}, and when the parameter is absent: accepted, each one named in a {@code
 *       Warning} header;
 *   <li>with {@code Ignore}: accepted silently.
 * </ul>
 *
 * Unknown fields are then pruned by admission, as before. Server-side apply is stricter, as on a
 * real server: whatever the directive, an unknown field in an apply body fails with "failed to
 * create typed patch object (...): .spec.priority: field not declared in schema" (400 BadRequest
 * here, where the real server answers 500: the mistake is the client's); only its duplicate keys
 * follow the directive.
 *
 * <p>The order of the findings is the real server's: for a built-in kind the order of the body
 * (Go's strict decoder meets them in that order); for a custom resource the duplicates first, then
 * the unknown fields of {@code metadata}, then the others, each sorted (they come from a map).
 */
final class FieldValidation {

  enum Directive {
    IGNORE,
    WARN,
    STRICT
  }

  private final ObjectMapper json;
  private final ObjectMapper yaml;

  FieldValidation(ObjectMapper json, ObjectMapper yaml) {
    this.json = json;
    this.yaml = yaml;
  }

  /**
   * The request's directive; {@code Warn} when absent, as on a real server.
   *
   * @throws ApiException 422 for a value other than Ignore, Warn and Strict
   */
  static Directive directive(ApiRequest req) {
    String value = req.param("fieldValidation");
    return switch (value == null ? "" : value) {
      case "", "Warn" -> Directive.WARN;
      case "Ignore" -> Directive.IGNORE;
      case "Strict" -> Directive.STRICT;
      default -> {
        String options =
            switch (req.method()) {
              case "POST" -> "CreateOptions";
              case "PUT" -> "UpdateOptions";
              default -> "PatchOptions";
            };
        String message =
            "Unsupported value: \""
                + value
                + "\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"";
        throw new ApiException(
            422,
            "Invalid",
            options + ".meta.k8s.io \"\" is invalid: fieldValidation: " + message,
            options,
            null,
            List.of(new ApiException.Cause("fieldValidation", message, "FieldValueNotSupported")));
      }
    };
  }

  /**
   * Checks the body of a create or update.
   *
   * @return the warnings to send (none unless the directive is Warn)
   * @throws ApiException 400 under Strict when the body has an unknown or duplicate field
   */
  List<String> decoded(ApiRequest req, ResourceType type, String version) {
    Directive directive = directive(req);
    Optional<FieldModel> model = FieldModels.of(type, version);
    if (directive == Directive.IGNORE
        || model.isEmpty()
        || ProtobufBodies.isProtobuf(req.contentType())) {
      return List.of();
    }
    boolean isYaml = req.contentType().startsWith("application/yaml");
    List<FieldScan.Finding> findings = scan(req.body(), isYaml, model.get());
    List<String> problems = problems(type, findings, isYaml, directive);
    if (directive == Directive.STRICT && !problems.isEmpty()) {
      throw ApiException.badRequest(
          type.kind()
              + " in version \""
              + version
              + "\" cannot be handled as a "
              + type.kind()
              + ": strict decoding error: "
              + String.join(", ", problems));
    }
    return problems;
  }

  /**
   * Checks the object a merge, strategic or JSON patch produced.
   *
   * @return the warnings to send (none unless the directive is Warn)
   * @throws ApiException 422 under Strict when the patched object has an unknown field
   */
  List<String> patched(ApiRequest req, ResourceType type, String version, ObjectNode patched) {
    Directive directive = directive(req);
    Optional<FieldModel> model = FieldModels.of(type, version);
    if (directive == Directive.IGNORE || model.isEmpty()) {
      return List.of();
    }
    List<String> problems;
    try (JsonParser parser = patched.traverse(json)) {
      problems = problems(type, FieldScan.of(parser, model.get()), false, directive);
    } catch (IOException e) {
      throw new IllegalStateException("a parsed tree reads back", e);
    }
    if (directive == Directive.STRICT && !problems.isEmpty()) {
      String message =
          "Invalid value: "
              + quoted(sorted(patched).toString())
              + ": strict decoding error: "
              + String.join(", ", problems);
      throw new ApiException(
          422,
          "Invalid",
          " \"\" is invalid: patch: " + message,
          null,
          null,
          List.of(new ApiException.Cause("patch", message, "FieldValueInvalid")));
    }
    return problems;
  }

  /**
   * Checks the body of a server-side apply.
   *
   * @return the warnings to send (duplicate keys under Warn)
   * @throws ApiException 400 for duplicate keys under Strict, and for a field the kind does not
   *     declare whatever the directive
   */
  List<String> applied(ApiRequest req, ResourceType type, String version) {
    Directive directive = directive(req);
    Optional<FieldModel> model = FieldModels.of(type, version);
    if (model.isEmpty()) {
      return List.of();
    }
    List<FieldScan.Finding> findings = scan(req.body(), true, model.get());
    List<String> duplicates =
        findings.stream()
            .filter(f -> f.kind() == FieldScan.FindingKind.DUPLICATE)
            .map(FieldValidation::yamlDuplicate)
            .toList();
    if (!duplicates.isEmpty() && directive == Directive.STRICT) {
      throw ApiException.badRequest(
          "error strict decoding YAML: error converting YAML to JSON: " + yamlErrors(duplicates));
    }
    Optional<String> undeclared =
        findings.stream()
            .filter(f -> f.kind() == FieldScan.FindingKind.UNKNOWN)
            .map(FieldScan.Finding::path)
            .min(Comparator.naturalOrder());
    if (undeclared.isPresent()) {
      JsonNode meta = readOrEmpty(req.body()).path("metadata");
      // the real server answers 500 with no reason; it is the client's mistake, so 400 here
      throw ApiException.badRequest(
          "failed to create typed patch object ("
              + meta.path("namespace").asText("")
              + "/"
              + meta.path("name").asText("")
              + "; "
              + type.group()
              + "/"
              + version
              + ", Kind="
              + type.kind()
              + "): ."
              + undeclared.get()
              + ": field not declared in schema");
    }
    return directive == Directive.WARN ? duplicates : List.of();
  }

  private List<FieldScan.Finding> scan(byte[] body, boolean isYaml, FieldModel model) {
    try (JsonParser parser = (isYaml ? yaml : json).getFactory().createParser(body)) {
      return FieldScan.of(parser, model);
    } catch (IOException e) {
      // a malformed body: the parse that follows answers it with its own error
      return List.of();
    }
  }

  /** The findings in the real server's order and words. */
  private static List<String> problems(
      ResourceType type, List<FieldScan.Finding> findings, boolean isYaml, Directive directive) {
    List<String> problems = new ArrayList<>();
    List<FieldScan.Finding> duplicates =
        findings.stream().filter(f -> f.kind() == FieldScan.FindingKind.DUPLICATE).toList();
    if (isYaml && !duplicates.isEmpty()) {
      List<String> lines = duplicates.stream().map(FieldValidation::yamlDuplicate).toList();
      if (directive == Directive.STRICT) {
        problems.add(yamlErrors(lines));
      } else {
        problems.addAll(lines);
      }
    }
    if (type.isCustom()) {
      if (!isYaml) {
        duplicates.forEach(f -> problems.add(describe(f)));
      }
      List<String> unknown =
          findings.stream()
              .filter(f -> f.kind() == FieldScan.FindingKind.UNKNOWN)
              .map(FieldScan.Finding::path)
              .sorted()
              .toList();
      unknown.stream()
          .filter(p -> p.startsWith("metadata."))
          .forEach(p -> problems.add("unknown field \"" + p + "\""));
      unknown.stream()
          .filter(p -> !p.startsWith("metadata."))
          .forEach(p -> problems.add("unknown field \"" + p + "\""));
    } else {
      findings.stream()
          .filter(f -> !(isYaml && f.kind() == FieldScan.FindingKind.DUPLICATE))
          .forEach(f -> problems.add(describe(f)));
    }
    return problems;
  }

  private static String describe(FieldScan.Finding finding) {
    return (finding.kind() == FieldScan.FindingKind.DUPLICATE ? "duplicate" : "unknown")
        + " field \""
        + finding.path()
        + "\"";
  }

  /** go-yaml's words for a key set twice. */
  private static String yamlDuplicate(FieldScan.Finding finding) {
    return "line " + finding.line() + ": key \"" + finding.key() + "\" already set in map";
  }

  private static String yamlErrors(List<String> lines) {
    return lines.stream()
        .map(l -> "\n  " + l)
        .collect(Collectors.joining("", "yaml: unmarshal errors:", ""));
  }

  private JsonNode readOrEmpty(byte[] body) {
    try {
      JsonNode node = yaml.readTree(body);
      return node == null ? json.createObjectNode() : node;
    } catch (IOException e) {
      return json.createObjectNode();
    }
  }

  /** The object with its keys sorted at every level, as Go prints a map. */
  private JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = json.createObjectNode();
      node.properties().stream()
          .sorted(Map.Entry.comparingByKey())
          .forEach(e -> copy.set(e.getKey(), sorted(e.getValue())));
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = json.createArrayNode();
      node.forEach(item -> copy.add(sorted(item)));
      return copy;
    }
    return node;
  }

  /** A string as Go's {@code %q} prints it (the value quoted in the real server's message). */
  private static String quoted(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
