package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Server-side apply's invariants over random sequences of applies by three managers to an object
 * with a struct of scalars, a map of labels and a keyed list. Each manager applies values of its
 * own (its name), so no two managers ever agree on a value and nothing but a list item's key is
 * co-owned.
 */
class ManagedFieldsPropertiesTest {

  private static final List<String> MANAGERS = List.of("alpha", "beta", "gamma");
  private static final List<String> SPEC_FIELDS = List.of("a", "b", "c");
  private static final List<String> LABELS = List.of("x", "y");
  private static final List<String> ITEMS = List.of("one", "two");

  private static final FieldShape SHAPE =
      new FieldShape.Fields(
          key ->
              switch (key) {
                case "metadata" ->
                    new FieldShape.Fields(
                        k ->
                            k.equals("labels")
                                ? new FieldShape.Fields(l -> null, FieldShape.SCALAR, false)
                                : k.equals("name") ? FieldShape.SCALAR : null,
                        null,
                        false);
                case "spec" ->
                    new FieldShape.Fields(
                        k ->
                            k.equals("items")
                                ? new FieldShape.Items(
                                    new FieldShape.Fields(
                                        i ->
                                            i.equals("name") || i.equals("value")
                                                ? FieldShape.SCALAR
                                                : null,
                                        null,
                                        false),
                                    FieldShape.ListKind.MAP,
                                    List.of("name"))
                                : SPEC_FIELDS.contains(k) ? FieldShape.SCALAR : null,
                        null,
                        false);
                default -> null;
              },
          null,
          false);

  /** One apply: who, and which fields it sets (each to the manager's own name). */
  record Step(String manager, Set<String> spec, Set<String> labels, Set<String> items) {
    ObjectNode config() {
      ObjectNode o = JsonNodeFactory.instance.objectNode();
      ObjectNode meta = o.putObject("metadata").put("name", "o");
      if (!labels.isEmpty()) {
        ObjectNode l = meta.putObject("labels");
        labels.forEach(k -> l.put(k, manager));
      }
      if (spec.isEmpty() && items.isEmpty()) {
        return o; // an empty spec would be a value of its own, owned by whoever applies it
      }
      ObjectNode specNode = o.putObject("spec");
      for (String f : spec) {
        specNode.put(f, manager);
      }
      if (!items.isEmpty()) {
        ArrayNode list = specNode.putArray("items");
        items.forEach(i -> list.addObject().put("name", i).put("value", manager));
      }
      return o;
    }
  }

  @Provide
  Arbitrary<List<Step>> sequences() {
    Arbitrary<Step> step =
        Combinators.combine(
                Arbitraries.of(MANAGERS),
                Arbitraries.subsetOf(SPEC_FIELDS),
                Arbitraries.subsetOf(LABELS),
                Arbitraries.subsetOf(ITEMS))
            .as(Step::new);
    return step.list().ofMinSize(1).ofMaxSize(8);
  }

  @Property
  void applyingTheSameConfigurationTwiceChangesNothing(@ForAll("sequences") List<Step> steps) {
    JsonNode live = run(steps.subList(0, steps.size() - 1));
    Step last = steps.get(steps.size() - 1);
    ManagedFields.Applied.Merged once = apply(live, last);
    ManagedFields.Applied.Merged twice = apply(once.object(), last);
    assertThat(twice.object()).isEqualTo(once.object());
    assertThat(fields(twice.managed())).isEqualTo(fields(once.managed()));
  }

  @Property
  void eachFieldHasOneOwnerHoldingTheValueItApplied(@ForAll("sequences") List<Step> steps) {
    List<ManagedFields.Entry> managed = new ArrayList<>();
    JsonNode live = JsonNodeFactory.instance.objectNode();
    for (Step s : steps) {
      ManagedFields.Applied.Merged m = apply(live, managed, s);
      live = m.object();
      managed = m.managed();
    }
    List<List<String>> seen = new ArrayList<>();
    for (ManagedFields.Entry e : managed) {
      assertThat(e.operation()).isEqualTo(ManagedFields.APPLY);
      for (List<String> path : e.fields().paths()) {
        if (isKey(path)) {
          continue; // a list item and its key: every manager applying that item owns them
        }
        assertThat(seen).as("owned twice: %s", path).doesNotContain(path);
        seen.add(path);
        JsonNode value = valueAt(live, path);
        if (value != null && value.isTextual()) {
          assertThat(value.asText()).as("%s", path).isEqualTo(e.manager());
        }
      }
    }
    // nothing is left that nobody owns: every scalar of spec and labels has an owner
    for (String f : SPEC_FIELDS) {
      if (live.path("spec").has(f)) {
        assertThat(seen).contains(List.of("f:spec", "f:" + f));
      }
    }
    for (String l : LABELS) {
      if (live.path("metadata").path("labels").has(l)) {
        assertThat(seen).contains(List.of("f:metadata", "f:labels", "f:" + l));
      }
    }
  }

  private static boolean isKey(List<String> path) {
    String last = path.get(path.size() - 1);
    return last.startsWith("k:")
        || (last.equals("f:name") && path.get(path.size() - 2).startsWith("k:"));
  }

  private static JsonNode run(List<Step> steps) {
    List<ManagedFields.Entry> managed = new ArrayList<>();
    JsonNode live = JsonNodeFactory.instance.objectNode();
    for (Step s : steps) {
      ManagedFields.Applied.Merged m = apply(live, managed, s);
      live = m.object();
      managed = m.managed();
      ManagedFields.write((ObjectNode) live, managed);
    }
    return live;
  }

  private static ManagedFields.Applied.Merged apply(JsonNode live, Step step) {
    ObjectNode copy = live.deepCopy();
    List<ManagedFields.Entry> managed = ManagedFields.of(copy);
    if (copy.path("metadata") instanceof ObjectNode meta) {
      meta.remove("managedFields");
    }
    ManagedFields.Applied.Merged m = apply(copy, managed, step);
    ObjectNode out = ((ObjectNode) m.object()).deepCopy();
    ManagedFields.write(out, m.managed());
    return new ManagedFields.Applied.Merged(out, m.managed());
  }

  private static ManagedFields.Applied.Merged apply(
      JsonNode live, List<ManagedFields.Entry> managed, Step step) {
    if (live.path("metadata") instanceof ObjectNode meta) {
      meta.remove("managedFields");
    }
    ManagedFields.Applied outcome =
        ManagedFields.apply(
            managed,
            live,
            step.config(),
            SHAPE,
            FieldSet.EMPTY,
            new ManagedFields.Writer(step.manager(), "v1", ""),
            true,
            "2026-12-01T00:00:00Z");
    return (ManagedFields.Applied.Merged) outcome;
  }

  private static Map<String, FieldSet> fields(List<ManagedFields.Entry> entries) {
    return entries.stream()
        .collect(Collectors.toMap(ManagedFields.Entry::identity, ManagedFields.Entry::fields));
  }

  private static JsonNode valueAt(JsonNode root, List<String> path) {
    JsonNode node = root;
    for (String element : path) {
      if (element.startsWith("f:")) {
        node = node.get(element.substring(2));
      } else if (element.startsWith("k:")) {
        String name = FieldValues.readJson(element.substring(2)).path("name").asText();
        JsonNode found = null;
        for (JsonNode item : node) {
          if (item.path("name").asText().equals(name)) {
            found = item;
          }
        }
        node = found;
      }
      if (node == null) {
        return null;
      }
    }
    return node;
  }
}
