package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A set of field paths, as server-side apply keeps per field manager ({@code fieldsV1} of a {@code
 * managedFields} entry).
 *
 * <p>A path is a list of elements, each written as in {@code fieldsV1}: {@code f:NAME} for a field
 * or map key, {@code k:{"name":"main"}} for the item of a list keyed by its fields, {@code v:VALUE}
 * for the item of a set, {@code i:N} for an item known only by its index. The set iterates in the
 * order structured-merge-diff does (the members of a level, sorted, before the levels below), which
 * is the order the real server lists conflicts in.
 */
final class FieldSet {

  /** Fields before keys before values before indexes; names in byte order, indexes by number. */
  static final Comparator<String> ELEMENTS =
      Comparator.comparingInt((String e) -> "fkvi".indexOf(e.charAt(0)))
          .thenComparing(
              (a, b) ->
                  a.startsWith("i:") && b.startsWith("i:")
                      ? Integer.compare(
                          Integer.parseInt(a.substring(2)), Integer.parseInt(b.substring(2)))
                      : a.compareTo(b));

  /** At each level the members (paths ending there) first, then the paths that go further. */
  static final Comparator<List<String>> PATHS =
      (p, q) -> {
        for (int i = 0; ; i++) {
          boolean pEnds = p.size() == i + 1;
          boolean qEnds = q.size() == i + 1;
          if (pEnds != qEnds) {
            return pEnds ? -1 : 1;
          }
          int c = ELEMENTS.compare(p.get(i), q.get(i));
          if (c != 0 || pEnds) {
            return c;
          }
        }
      };

  static final FieldSet EMPTY = new FieldSet(new TreeSet<>(PATHS));

  private final TreeSet<List<String>> paths;

  private FieldSet(TreeSet<List<String>> paths) {
    this.paths = paths;
  }

  static FieldSet of(Collection<List<String>> paths) {
    TreeSet<List<String>> set = new TreeSet<>(PATHS);
    for (List<String> p : paths) {
      if (!p.isEmpty()) {
        set.add(List.copyOf(p));
      }
    }
    return new FieldSet(set);
  }

  boolean isEmpty() {
    return paths.isEmpty();
  }

  boolean contains(List<String> path) {
    return paths.contains(path);
  }

  /** The paths in structured-merge-diff's order. */
  List<List<String>> paths() {
    return List.copyOf(paths);
  }

  FieldSet union(FieldSet other) {
    TreeSet<List<String>> set = new TreeSet<>(paths);
    set.addAll(other.paths);
    return new FieldSet(set);
  }

  FieldSet difference(FieldSet other) {
    if (other.isEmpty() || isEmpty()) {
      return this;
    }
    TreeSet<List<String>> set = new TreeSet<>(paths);
    set.removeAll(other.paths);
    return new FieldSet(set);
  }

  FieldSet intersection(FieldSet other) {
    TreeSet<List<String>> set = new TreeSet<>(paths);
    set.retainAll(other.paths);
    return new FieldSet(set);
  }

  /** Reads {@code fieldsV1}; {@code "."} marks the level itself as a member. */
  static FieldSet fromFieldsV1(JsonNode fields) {
    List<List<String>> paths = new ArrayList<>();
    read(fields, new ArrayList<>(), paths);
    return of(paths);
  }

  private static void read(JsonNode node, List<String> prefix, List<List<String>> paths) {
    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().equals(".")) {
        paths.add(List.copyOf(prefix));
        continue;
      }
      prefix.add(e.getKey());
      if (e.getValue().size() == 0) {
        paths.add(List.copyOf(prefix));
      } else {
        read(e.getValue(), prefix, paths);
      }
      prefix.remove(prefix.size() - 1);
    }
  }

  /** Writes {@code fieldsV1}: each level's keys sorted, {@code "."} first. */
  ObjectNode toFieldsV1() {
    Level root = new Level();
    for (List<String> path : paths) {
      Level level = root;
      for (String element : path) {
        level = level.children.computeIfAbsent(element, e -> new Level());
      }
      level.member = true;
    }
    return root.toJson();
  }

  /** One level of {@code fieldsV1} while it is written: its members below, in element order. */
  private static final class Level {
    final TreeMap<String, Level> children = new TreeMap<>(ELEMENTS);
    boolean member;

    /** {@code "."} when the level is a member and goes further; {@code {}} for a member leaf. */
    ObjectNode toJson() {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      if (member && !children.isEmpty()) {
        out.putObject(".");
      }
      children.forEach((element, below) -> out.set(element, below.toJson()));
      return out;
    }
  }

  /**
   * A path as the real server prints it in a conflict: {@code .spec.group}, {@code
   * .spec.containers[name="main"]}, {@code .metadata.finalizers[="x"]}, {@code .args[0]}.
   */
  static String display(List<String> path) {
    StringBuilder out = new StringBuilder();
    for (String element : path) {
      String rest = element.substring(2);
      switch (element.charAt(0)) {
        case 'f' -> out.append('.').append(rest);
        case 'k' -> out.append(keyDisplay(rest));
        case 'v' -> out.append("[=").append(rest).append(']');
        default -> out.append('[').append(rest).append(']');
      }
    }
    return out.toString();
  }

  private static String keyDisplay(String json) {
    JsonNode keys = FieldValues.readJson(json);
    return keys.properties().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(",", "[", "]"));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FieldSet other && paths.equals(other.paths);
  }

  @Override
  public int hashCode() {
    return paths.hashCode();
  }

  @Override
  public String toString() {
    return paths.stream().map(FieldSet::display).collect(Collectors.joining(" "));
  }
}
