package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The value operations of server-side apply over JSON, each the one structured-merge-diff defines:
 * the set of fields a value sets ({@link #fieldsOf}), what changed between two values ({@link
 * #compare}), the merge of an applied configuration into the live object ({@link #merge}) and the
 * removal of fields ({@link #remove}). Pure functions; inputs are never changed.
 */
final class FieldValues {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** What changed from one value to another, as three sets of fields. */
  record Comparison(FieldSet added, FieldSet modified, FieldSet removed) {}

  private FieldValues() {}

  /**
   * The fields a value sets: every scalar and atomic value, every list item, and every object entry
   * that is empty, null or not a declared field (a map key).
   */
  static FieldSet fieldsOf(JsonNode value, FieldShape shape) {
    List<List<String>> out = new ArrayList<>();
    fieldsOf(value, shape, new ArrayList<>(), out);
    return FieldSet.of(out);
  }

  private static void fieldsOf(
      JsonNode value, FieldShape shape, List<String> path, List<List<String>> out) {
    FieldShape s = FieldShape.resolve(shape, value);
    if (FieldShape.isLeaf(s) || value == null || value.isNull()) {
      out.add(List.copyOf(path));
    } else if (s instanceof FieldShape.Items items && value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        path.add(element(items, value.get(i), i));
        fieldsOf(value.get(i), items.item(), path, out);
        out.add(List.copyOf(path));
        path.remove(path.size() - 1);
      }
    } else if (s instanceof FieldShape.Fields fields && value.isObject()) {
      value
          .properties()
          .forEach(
              e -> {
                path.add("f:" + e.getKey());
                JsonNode child = e.getValue();
                fieldsOf(child, fields.field(e.getKey()), path, out);
                if (child.isNull()
                    || (child.isObject() && child.isEmpty())
                    || !fields.isDeclared(e.getKey())) {
                  out.add(List.copyOf(path));
                }
                path.remove(path.size() - 1);
              });
    } else {
      out.add(List.copyOf(path));
    }
  }

  /** How an item of a list is named in a path. */
  static String element(FieldShape.Items items, JsonNode item, int index) {
    if (items.kind() == FieldShape.ListKind.SET) {
      return "v:" + item;
    }
    if (items.kind() == FieldShape.ListKind.MAP) {
      ObjectNode key = JsonNodeFactory.instance.objectNode();
      new TreeMap<>(keyValues(items, item)).forEach(key::set);
      return "k:" + key;
    }
    return "i:" + index;
  }

  private static Map<String, JsonNode> keyValues(FieldShape.Items items, JsonNode item) {
    Map<String, JsonNode> key = new LinkedHashMap<>();
    for (String k : items.keys()) {
      if (item.has(k)) {
        key.put(k, item.get(k));
      }
    }
    return key;
  }

  /** What changed from {@code lhs} to {@code rhs} (either may be absent: {@code null}). */
  static Comparison compare(JsonNode lhs, JsonNode rhs, FieldShape shape) {
    List<List<String>> added = new ArrayList<>();
    List<List<String>> modified = new ArrayList<>();
    List<List<String>> removed = new ArrayList<>();
    compare(lhs, rhs, shape, new ArrayList<>(), added, modified, removed);
    return new Comparison(FieldSet.of(added), FieldSet.of(modified), FieldSet.of(removed));
  }

  private static void compare(
      JsonNode lhs,
      JsonNode rhs,
      FieldShape shape,
      List<String> path,
      List<List<String>> added,
      List<List<String>> modified,
      List<List<String>> removed) {
    FieldShape s = FieldShape.resolve(shape, rhs != null ? rhs : lhs);
    boolean object = s instanceof FieldShape.Fields && !FieldShape.isLeaf(s);
    boolean list = s instanceof FieldShape.Items && !FieldShape.isLeaf(s);
    boolean granular =
        (object && isAbsentOr(lhs, JsonNode::isObject) && isAbsentOr(rhs, JsonNode::isObject))
            || (list && isAbsentOr(lhs, JsonNode::isArray) && isAbsentOr(rhs, JsonNode::isArray));
    if (!granular) {
      if (lhs == null) {
        added.add(List.copyOf(path));
      } else if (rhs == null) {
        removed.add(List.copyOf(path));
      } else if (!lhs.equals(rhs)) {
        modified.add(List.copyOf(path));
      }
      return;
    }
    if (object) {
      FieldShape.Fields fields = (FieldShape.Fields) s;
      Set<String> keys = new LinkedHashSet<>();
      if (lhs != null) {
        lhs.fieldNames().forEachRemaining(keys::add);
      }
      if (rhs != null) {
        rhs.fieldNames().forEachRemaining(keys::add);
      }
      for (String key : keys) {
        path.add("f:" + key);
        compare(
            lhs == null ? null : lhs.get(key),
            rhs == null ? null : rhs.get(key),
            fields.field(key),
            path,
            added,
            modified,
            removed);
        path.remove(path.size() - 1);
      }
    } else {
      FieldShape.Items items = (FieldShape.Items) s;
      Map<String, JsonNode> left = index(items, lhs);
      Map<String, JsonNode> right = index(items, rhs);
      Set<String> elements = new LinkedHashSet<>(left.keySet());
      elements.addAll(right.keySet());
      for (String element : elements) {
        path.add(element);
        compare(
            left.get(element), right.get(element), items.item(), path, added, modified, removed);
        path.remove(path.size() - 1);
      }
    }
    if (lhs == null) {
      added.add(List.copyOf(path));
    } else if (rhs == null) {
      removed.add(List.copyOf(path));
    }
  }

  private static boolean isAbsentOr(JsonNode node, Predicate<JsonNode> test) {
    return node == null || test.test(node);
  }

  /** A granular list's items by their path element, in list order. */
  private static Map<String, JsonNode> index(FieldShape.Items items, JsonNode list) {
    Map<String, JsonNode> byElement = new LinkedHashMap<>();
    if (list != null) {
      for (int i = 0; i < list.size(); i++) {
        byElement.put(element(items, list.get(i), i), list.get(i));
      }
    }
    return byElement;
  }

  /**
   * The applied configuration merged into the live value: the configuration's scalars and atomic
   * values win, objects merge key by key, keyed lists item by item (in structured-merge-diff's
   * order: the live order, the configuration's new items where the configuration puts them).
   */
  static JsonNode merge(JsonNode lhs, JsonNode rhs, FieldShape shape) {
    if (rhs == null) {
      return lhs == null ? null : lhs.deepCopy();
    }
    if (lhs == null) {
      return rhs.deepCopy();
    }
    FieldShape s = FieldShape.resolve(shape, rhs);
    if (FieldShape.isLeaf(s)) {
      return rhs.deepCopy();
    }
    if (s instanceof FieldShape.Fields fields && lhs.isObject() && rhs.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      lhs.properties()
          .forEach(
              e ->
                  out.set(
                      e.getKey(),
                      merge(e.getValue(), rhs.get(e.getKey()), fields.field(e.getKey()))));
      rhs.properties()
          .forEach(
              e -> {
                if (!lhs.has(e.getKey())) {
                  out.set(e.getKey(), e.getValue().deepCopy());
                }
              });
      return out;
    }
    if (s instanceof FieldShape.Items items && lhs.isArray() && rhs.isArray()) {
      return mergeItems(items, lhs, rhs);
    }
    return rhs.deepCopy();
  }

  /** structured-merge-diff's list merge: shared items in the configuration's order. */
  private static ArrayNode mergeItems(FieldShape.Items items, JsonNode lhs, JsonNode rhs) {
    List<String> lhsElements = new ArrayList<>(index(items, lhs).keySet());
    List<String> rhsElements = new ArrayList<>(index(items, rhs).keySet());
    Map<String, JsonNode> left = index(items, lhs);
    Map<String, JsonNode> right = index(items, rhs);
    List<String> shared = new ArrayList<>(rhsElements);
    shared.retainAll(left.keySet());
    int nextShared = 0;
    Set<String> merged = new LinkedHashSet<>();
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    int l = 0;
    int r = 0;
    while (l < lhsElements.size() || r < rhsElements.size()) {
      if (l < lhsElements.size() && r < rhsElements.size()) {
        String pe = lhsElements.get(l);
        if (pe.equals(rhsElements.get(r))) {
          merged.add(pe);
          out.add(merge(left.get(pe), right.get(pe), items.item()));
          l++;
          r++;
          nextShared = Math.min(nextShared + 1, shared.size());
          continue;
        }
        if (right.containsKey(pe)
            && nextShared < shared.size()
            && !shared.get(nextShared).equals(pe)) {
          l++;
          continue;
        }
      }
      if (l < lhsElements.size()) {
        String pe = lhsElements.get(l);
        if (!right.containsKey(pe)) {
          out.add(left.get(pe).deepCopy());
          l++;
          continue;
        } else if (merged.contains(pe)) {
          l++;
          continue;
        }
      }
      if (r < rhsElements.size()) {
        String pe = rhsElements.get(r);
        merged.add(pe);
        out.add(merge(left.get(pe), right.get(pe), items.item()));
        r++;
        if (nextShared < shared.size() && shared.get(nextShared).equals(pe)) {
          nextShared++;
        }
      }
    }
    return out;
  }

  /** The value without the fields of {@code set} (each with all below it). */
  static JsonNode remove(JsonNode value, FieldSet set, FieldShape shape) {
    JsonNode copy = value.deepCopy();
    for (List<String> path : set.paths()) {
      removePath(copy, path, shape);
    }
    return copy;
  }

  private static void removePath(JsonNode root, List<String> path, FieldShape shape) {
    JsonNode node = root;
    FieldShape s = shape;
    for (int i = 0; i < path.size(); i++) {
      s = FieldShape.resolve(s, node);
      String element = path.get(i);
      boolean last = i == path.size() - 1;
      if (element.startsWith("f:") && node instanceof ObjectNode object) {
        String key = element.substring(2);
        if (last) {
          object.remove(key);
          return;
        }
        node = object.get(key);
        s = s instanceof FieldShape.Fields f ? f.field(key) : FieldShape.DEDUCED;
      } else if (node instanceof ArrayNode array && s instanceof FieldShape.Items items) {
        int at = List.copyOf(index(items, array).keySet()).indexOf(element);
        if (at < 0) {
          return;
        }
        if (last) {
          array.remove(at);
          return;
        }
        node = array.get(at);
        s = items.item();
      } else {
        return;
      }
      if (node == null) {
        return;
      }
    }
  }

  /**
   * The set with every declared field that has owned fields below it owned too (a map key or a list
   * item is not added): structured-merge-diff's {@code EnsureNamedFieldsAreMembers}.
   */
  static FieldSet withNamedFields(FieldSet set, FieldShape shape) {
    List<List<String>> out = new ArrayList<>(set.paths());
    for (List<String> path : set.paths()) {
      FieldShape s = shape;
      for (int i = 0; i < path.size() - 1; i++) {
        String element = path.get(i);
        if (s instanceof FieldShape.Fields f && element.startsWith("f:")) {
          String key = element.substring(2);
          if (f.isDeclared(key)) {
            out.add(path.subList(0, i + 1));
          }
          s = f.field(key);
        } else if (s instanceof FieldShape.Items items) {
          s = items.item();
        } else {
          s = FieldShape.DEDUCED;
        }
      }
    }
    return FieldSet.of(out);
  }

  static JsonNode readJson(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + json, e);
    }
  }
}
