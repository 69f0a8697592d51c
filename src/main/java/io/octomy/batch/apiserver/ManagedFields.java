package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Field ownership ({@code metadata.managedFields}), computed as kube-apiserver 1.34's field manager
 * does with structured-merge-diff. Pure functions over the objects before and after a write.
 *
 * <p>An ordinary write (create, update, patch) records an {@code Update} entry for its manager
 * (with its apiVersion and subresource): the fields it added or changed become its own and nobody
 * else's; the fields it removed are nobody's. A server-side apply records an {@code Apply} entry
 * holding exactly the fields of the applied configuration; it fails with the conflicts when it
 * would change a field another manager owns, unless forced (then the field changes hands); and a
 * field the manager applied last time and no longer applies is removed from the object when no
 * other manager owns it. An entry that owns nothing is dropped.
 *
 * <p>As on the real server, {@code apiVersion}, {@code kind} and the server-set metadata (name,
 * namespace, uid, resourceVersion, generation, creationTimestamp, managedFields) are owned by
 * nobody, and a write of the main resource does not own status fields (nor a status write the
 * spec): the {@code ignored} fields.
 */
final class ManagedFields {

  /** Who writes: the manager's name, the apiVersion it writes in, and the subresource. */
  record Writer(String manager, String apiVersion, String subresource) {}

  /** One {@code managedFields} entry. {@code time} may be {@code null}. */
  record Entry(
      String manager,
      String operation,
      String apiVersion,
      String subresource,
      String time,
      FieldSet fields) {

    Entry {
      Objects.requireNonNull(manager);
      subresource = subresource == null ? "" : subresource;
    }

    /** Apply entries are one per manager whatever the apiVersion; Update entries per version. */
    String identity() {
      return manager
          + '\0'
          + operation
          + '\0'
          + (operation.equals(APPLY) ? "" : apiVersion)
          + '\0'
          + subresource;
    }

    Entry withFields(FieldSet f) {
      return new Entry(manager, operation, apiVersion, subresource, time, f);
    }
  }

  /** A field another manager owns, which an apply would change. */
  record Conflict(Entry owner, List<String> path) {}

  /** The outcome of an apply. */
  sealed interface Applied {
    record Merged(JsonNode object, List<Entry> managed) implements Applied {}

    record Conflicted(List<Conflict> conflicts) implements Applied {
      public Conflicted {
        conflicts = List.copyOf(conflicts);
        if (conflicts.isEmpty()) {
          throw new IllegalArgumentException("a conflict needs at least one field");
        }
      }
    }
  }

  static final String APPLY = "Apply";
  static final String UPDATE = "Update";

  private static final FieldSet NOBODYS =
      FieldSet.of(
          List.of(
              List.of("f:apiVersion"),
              List.of("f:kind"),
              List.of("f:metadata"),
              List.of("f:metadata", "f:name"),
              List.of("f:metadata", "f:namespace"),
              List.of("f:metadata", "f:creationTimestamp"),
              List.of("f:metadata", "f:selfLink"),
              List.of("f:metadata", "f:uid"),
              List.of("f:metadata", "f:clusterName"),
              List.of("f:metadata", "f:generation"),
              List.of("f:metadata", "f:managedFields"),
              List.of("f:metadata", "f:resourceVersion")));

  private ManagedFields() {}

  /** The entries of an object (none when it has no or unreadable {@code managedFields}). */
  static List<Entry> of(JsonNode object) {
    List<Entry> entries = new ArrayList<>();
    for (JsonNode e : object.path("metadata").path("managedFields")) {
      String manager = e.path("manager").asText("");
      String operation = e.path("operation").asText("");
      if (!operation.equals(APPLY) && !operation.equals(UPDATE)) {
        continue;
      }
      entries.add(
          new Entry(
              manager,
              operation,
              e.path("apiVersion").asText(""),
              e.path("subresource").asText(""),
              e.hasNonNull("time") ? e.get("time").asText() : null,
              FieldSet.fromFieldsV1(e.path("fieldsV1"))));
    }
    return entries;
  }

  /** Sets {@code metadata.managedFields} in the real server's order, or removes it when empty. */
  static void write(ObjectNode object, List<Entry> entries) {
    ObjectNode meta = object.withObjectProperty("metadata");
    if (entries.isEmpty()) {
      meta.remove("managedFields");
      return;
    }
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(
        Comparator.comparing(Entry::operation)
            .thenComparing(e -> e.time() == null ? "" : e.time())
            .thenComparing(Entry::manager)
            .thenComparing(Entry::apiVersion)
            .thenComparing(Entry::subresource));
    ArrayNode list = meta.putArray("managedFields");
    for (Entry e : sorted) {
      ObjectNode out = list.addObject();
      out.put("manager", e.manager()).put("operation", e.operation());
      out.put("apiVersion", e.apiVersion());
      if (e.time() != null) {
        out.put("time", e.time());
      }
      out.put("fieldsType", "FieldsV1");
      out.set("fieldsV1", e.fields().toFieldsV1());
      if (!e.subresource().isEmpty()) {
        out.put("subresource", e.subresource());
      }
    }
  }

  /**
   * The entries after an ordinary write from {@code live} (an empty object on create) to {@code
   * next}.
   */
  static List<Entry> update(
      List<Entry> managed,
      JsonNode live,
      JsonNode next,
      FieldShape shape,
      FieldSet ignored,
      Writer writer,
      String now) {
    FieldValues.Comparison change = exclude(FieldValues.compare(live, next, shape), ignored);
    FieldSet taken = change.added().union(change.modified());
    Map<String, Entry> byIdentity = new LinkedHashMap<>();
    for (Entry e : managed) {
      byIdentity.put(
          e.identity(), e.withFields(e.fields().difference(taken).difference(change.removed())));
    }
    FieldSet own = taken.difference(NOBODYS);
    Entry mine =
        new Entry(writer.manager(), UPDATE, writer.apiVersion(), writer.subresource(), now, own);
    if (!own.isEmpty()) {
      Entry previous = byIdentity.get(mine.identity());
      byIdentity.put(
          mine.identity(), previous == null ? mine : mine.withFields(own.union(previous.fields())));
    }
    return nonEmpty(byIdentity);
  }

  /**
   * A server-side apply of {@code config} onto {@code live} (an empty object when it does not exist
   * yet).
   */
  static Applied apply(
      List<Entry> managed,
      JsonNode live,
      JsonNode config,
      FieldShape shape,
      FieldSet ignored,
      Writer writer,
      boolean force,
      String now) {
    JsonNode merged = FieldValues.merge(live, config, shape);
    Entry applier =
        new Entry(
            writer.manager(),
            APPLY,
            writer.apiVersion(),
            writer.subresource(),
            now,
            recursiveDifference(FieldValues.fieldsOf(config, shape), ignored));
    Map<String, Entry> byIdentity = new LinkedHashMap<>();
    managed.forEach(e -> byIdentity.put(e.identity(), e));
    Entry last = byIdentity.get(applier.identity());
    byIdentity.put(applier.identity(), applier);
    if (last != null && !last.fields().isEmpty()) {
      FieldSet owned = FieldSet.EMPTY;
      for (Entry e : byIdentity.values()) {
        owned = owned.union(e.fields());
      }
      FieldSet dropped =
          FieldValues.withNamedFields(last.fields(), shape)
              .difference(FieldValues.withNamedFields(owned, shape));
      merged = FieldValues.remove(merged, dropped, shape);
    }
    FieldValues.Comparison change = exclude(FieldValues.compare(live, merged, shape), ignored);
    FieldSet taken = change.added().union(change.modified());
    List<Conflict> conflicts = new ArrayList<>();
    for (Map.Entry<String, Entry> e : byIdentity.entrySet()) {
      if (e.getKey().equals(applier.identity())) {
        continue;
      }
      Entry other = e.getValue();
      FieldSet lost = other.fields().intersection(taken);
      lost.paths().forEach(p -> conflicts.add(new Conflict(other, p)));
      e.setValue(other.withFields(other.fields().difference(lost).difference(change.removed())));
    }
    if (!force && !conflicts.isEmpty()) {
      return new Applied.Conflicted(conflicts);
    }
    boolean changed = !merged.equals(live);
    String time = changed || last == null ? now : last.time();
    byIdentity.put(
        applier.identity(),
        new Entry(
            applier.manager(),
            APPLY,
            applier.apiVersion(),
            applier.subresource(),
            time,
            applier.fields().difference(NOBODYS)));
    return new Applied.Merged(merged, nonEmpty(byIdentity));
  }

  /** The fields of a set that are not at or below a field of {@code ignored}. */
  static FieldSet recursiveDifference(FieldSet set, FieldSet ignored) {
    if (ignored.isEmpty()) {
      return set;
    }
    List<List<String>> kept = new ArrayList<>();
    for (List<String> path : set.paths()) {
      boolean below = false;
      for (List<String> i : ignored.paths()) {
        below |= path.size() >= i.size() && path.subList(0, i.size()).equals(i);
      }
      if (!below) {
        kept.add(path);
      }
    }
    return FieldSet.of(kept);
  }

  private static FieldValues.Comparison exclude(FieldValues.Comparison c, FieldSet ignored) {
    return new FieldValues.Comparison(
        recursiveDifference(c.added(), ignored),
        recursiveDifference(c.modified(), ignored),
        recursiveDifference(c.removed(), ignored));
  }

  private static List<Entry> nonEmpty(Map<String, Entry> byIdentity) {
    return byIdentity.values().stream().filter(e -> !e.fields().isEmpty()).toList();
  }
}
