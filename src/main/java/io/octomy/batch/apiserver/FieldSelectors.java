package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Field selectors of list, watch and delete-collection requests ({@code
 * fieldSelector=metadata.name=foo,type!=Normal}), read as the real server reads them: terms split
 * on unescaped commas and taken in sorted order, {@code =}, {@code ==} and {@code !=}, the escapes
 * {@code \\}, {@code \,} and {@code \=} in values, and only the field labels the resource supports.
 * A field a client may not select on is refused with 400 and the real server's message, so that a
 * selector that works here works on a cluster. Selectors are matched against stored objects, so
 * events.k8s.io's Event labels are read as the core fields they name ({@link EventVersions}).
 */
final class FieldSelectors {

  /** What a resource lets clients select on, and whether it answers with the generic message. */
  private record SelectableFields(Set<String> fields, boolean generic) {}

  private static final Set<String> NAMESPACED = Set.of("metadata.name", "metadata.namespace");
  private static final Set<String> CLUSTER = Set.of("metadata.name");

  /** Built-in kinds with their own field labels (the others: metadata.name and namespace). */
  private static final Map<String, Set<String>> BUILT_IN =
      Map.of(
          "/pods",
          Set.of(
              "spec.nodeName",
              "spec.restartPolicy",
              "spec.schedulerName",
              "spec.serviceAccountName",
              "spec.hostNetwork",
              "status.phase",
              "status.podIP",
              "status.podIPs",
              "status.nominatedNodeName"),
          "/events",
          Set.of(
              "involvedObject.kind",
              "involvedObject.namespace",
              "involvedObject.name",
              "involvedObject.uid",
              "involvedObject.apiVersion",
              "involvedObject.resourceVersion",
              "involvedObject.fieldPath",
              "reason",
              "reportingComponent",
              "source",
              "type"),
          "/secrets",
          Set.of("type"),
          "/services",
          Set.of("spec.clusterIP", "spec.type"),
          "/namespaces",
          Set.of("status.phase"),
          "/nodes",
          Set.of("spec.unschedulable"));

  /** Characters a JSON writer copies into the text unchanged, inside a string or a literal. */
  private static final Pattern WRITTEN_AS_IS = Pattern.compile("[A-Za-z0-9._:/-]+");

  private FieldSelectors() {}

  /**
   * Matches every object when the expression is null or blank.
   *
   * @throws ApiException 400 for an expression the real server refuses
   */
  static Predicate<JsonNode> of(String expression, ResourceType type, String version) {
    Predicate<JsonNode> all = o -> true;
    if (expression == null || expression.isBlank()) {
      return all;
    }
    List<String> terms = splitTerms(expression);
    terms.sort(null);
    SelectableFields labels = labels(type, version);
    for (String term : terms) {
      if (term.isEmpty()) {
        continue;
      }
      String[] parts = splitTerm(term);
      if (parts == null) {
        throw ApiException.badRequest(
            "invalid selector: '" + expression + "'; can't understand '" + term + "'");
      }
      String label = parts[0];
      boolean negate = parts[1].equals("!=");
      String value = unescape(parts[2]);
      if (!labels.fields().contains(label)) {
        throw ApiException.badRequest(
            labels.generic()
                ? "\""
                    + label
                    + "\" is not a known field selector: only \"metadata.name\","
                    + " \"metadata.namespace\""
                : "field label not supported: " + label);
      }
      // events.k8s.io's labels name the fields of the core form Events are kept in
      String field =
          EventVersions.isEventsV1(type)
              ? EventVersions.coreFieldLabel(label).orElseThrow()
              : label;
      all = all.and(o -> negate != value.equals(value(o, field)));
    }
    return all;
  }

  /**
   * What the committed text of an object {@code expression} selects must hold: for each {@code =}
   * or {@code ==} term on a custom resource, the field's last name and its value side by side, as a
   * JSON writer without indentation puts them ({@code "node":"ws-1"}, or {@code "replicas":3} for
   * an integer or a boolean, the other types a selectable field may have). An absent field reads as
   * "", which is not looked for, nor are values with characters JSON would escape (only {@code
   * [A-Za-z0-9._:/-]}). An object whose text holds every pair may still not match: {@link #of}
   * decides, on the object read; one whose text lacks a pair need not be read. The agent's list of
   * the jobs on its node reads only those, not every job of the cluster (whose messages may name
   * the node too, hence the field's name beside the value).
   *
   * @param expression a selector {@link #of} accepted
   */
  static Predicate<String> mayMatchText(String expression, ResourceType type) {
    Predicate<String> all = text -> true;
    if (expression == null || expression.isBlank() || !type.isCustom()) {
      return all;
    }
    for (String term : splitTerms(expression)) {
      String[] parts = splitTerm(term);
      if (parts == null || parts[1].equals("!=")) {
        continue;
      }
      String value = unescape(parts[2]);
      String name = parts[0].substring(parts[0].lastIndexOf('.') + 1);
      if (!value.isEmpty()
          && WRITTEN_AS_IS.matcher(value).matches()
          && WRITTEN_AS_IS.matcher(name).matches()) {
        String asString = "\"" + name + "\":\"" + value + "\"";
        String asLiteral = "\"" + name + "\":" + value;
        all = all.and(text -> text.contains(asString) || text.contains(asLiteral));
      }
    }
    return all;
  }

  private static SelectableFields labels(ResourceType type, String version) {
    if (type.isCustom()) {
      Set<String> all = new HashSet<>(type.namespaced() ? NAMESPACED : CLUSTER);
      all.addAll(type.selectableFields().getOrDefault(version, Set.of()));
      return new SelectableFields(Set.copyOf(all), false);
    }
    if (EventVersions.isEventsV1(type)) {
      return new SelectableFields(EventVersions.eventsV1FieldLabels(), false);
    }
    Set<String> own = BUILT_IN.get(type.key());
    if (own == null) {
      return new SelectableFields(NAMESPACED, true);
    }
    Set<String> all = new HashSet<>(own);
    all.addAll(type.namespaced() ? NAMESPACED : CLUSTER);
    return new SelectableFields(Set.copyOf(all), false);
  }

  /** A field's value as the real server indexes it: absent reads as "" (a Node as schedulable). */
  private static String value(JsonNode o, String label) {
    JsonNode n = o;
    for (String p : label.split("\\.")) {
      n = n.path(p);
    }
    if (label.equals("spec.unschedulable") && !n.isValueNode()) {
      return "false";
    }
    if (label.equals("source") && !n.isValueNode()) {
      // a core Event's source is its source component, else its reporting controller
      String component = o.path("source").path("component").asText("");
      return component.isEmpty() ? o.path("reportingComponent").asText("") : component;
    }
    return n.isValueNode() ? n.asText() : "";
  }

  /** Splits on commas that no backslash escapes. */
  private static List<String> splitTerms(String expression) {
    List<String> terms = new ArrayList<>();
    StringBuilder term = new StringBuilder();
    boolean escaped = false;
    for (char c : expression.toCharArray()) {
      if (escaped) {
        term.append(c);
        escaped = false;
      } else if (c == '\\') {
        term.append(c);
        escaped = true;
      } else if (c == ',') {
        terms.add(term.toString());
        term.setLength(0);
      } else {
        term.append(c);
      }
    }
    terms.add(term.toString());
    return terms;
  }

  /** Label, operator and raw value at the first operator ({@code !=}, {@code ==}, {@code =}). */
  private static String[] splitTerm(String term) {
    for (int i = 0; i < term.length(); i++) {
      for (String op : List.of("!=", "==", "=")) {
        if (term.startsWith(op, i)) {
          return new String[] {term.substring(0, i), op, term.substring(i + op.length())};
        }
      }
    }
    return null;
  }

  private static String unescape(String value) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\') {
        if (i + 1 >= value.length() || "\\,=".indexOf(value.charAt(i + 1)) < 0) {
          String sequence = value.substring(i, Math.min(value.length(), i + 2));
          throw ApiException.badRequest(
              "invalid field selector: invalid escape sequence: " + sequence);
        }
        out.append(value.charAt(++i));
      } else if (c == '=' || c == ',') {
        throw ApiException.badRequest(
            "invalid field selector: unescaped character in value: " + (int) c);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
