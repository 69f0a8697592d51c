package io.octomy.batch.standalone;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The visible objects, indexed by resource/namespace/name in a sorted map.
 *
 * <p>Why a sorted map: a single-object get, create, patch or update is one O(log n) lookup (the
 * stock mock scans every object), and a list of one resource, or of one resource in one namespace,
 * is a range of adjacent keys.
 *
 * <p>Only {@link ObjectStore} changes it, under its write lock and once a write is durable; reads
 * do not lock.
 */
final class ObjectIndex {

  private static final Logger LOG = LoggerFactory.getLogger(ObjectIndex.class);

  private final ConcurrentSkipListMap<String, ObjectNode> objects = new ConcurrentSkipListMap<>();

  /**
   * Loads every stored object. A row that the product could not read back (written by an older
   * version, or damaged) is moved aside into the database's {@code quarantine} table and named in
   * the log; everything else is served.
   */
  static ObjectIndex load(ObjectMapper json, SqliteStateStore db, CommitGuard guard) {
    ObjectIndex index = new ObjectIndex();
    for (SqliteStateStore.Row row : db.loadAll()) {
      String problem;
      try {
        JsonNode node = json.readTree(row.body());
        if (node instanceof ObjectNode object) {
          guard.check(row.resource(), row.namespace(), row.name(), object.deepCopy());
          index.put(key(row.resource(), row.namespace(), row.name()), object);
          continue;
        }
        problem = "not a JSON object";
      } catch (JsonProcessingException e) {
        problem = e.getOriginalMessage();
      } catch (ApiException e) {
        problem = e.getMessage();
      }
      db.quarantine(row, problem);
      LOG.warn(
          "state database: object {} {}/{} cannot be served ({}); it was moved to the quarantine"
              + " table of the state database and everything else is served",
          row.resource(),
          row.namespace(),
          row.name(),
          problem);
    }
    return index;
  }

  static String key(String resource, String namespace, String name) {
    return resource + '\u0000' + namespace + '\u0000' + name;
  }

  private static String prefix(String resource, String namespace) {
    return namespace == null ? resource + '\u0000' : resource + '\u0000' + namespace + '\u0000';
  }

  int size() {
    return objects.size();
  }

  /** The object under {@link #key}, or {@code null}. */
  ObjectNode get(String key) {
    return objects.get(key);
  }

  void put(String key, ObjectNode object) {
    objects.put(key, object);
  }

  void remove(String key) {
    objects.remove(key);
  }

  /** Objects of one resource, in one namespace or (namespace {@code null}) in all. */
  List<ObjectNode> range(String resource, String namespace) {
    String from = prefix(resource, namespace);
    // '\uffff' sorts after every character used in names, so this is exactly the keys with that
    // prefix
    return new ArrayList<>(objects.subMap(from, true, from + '\uffff', false).values());
  }

  /** Every object with its resource. */
  List<Map.Entry<String, ObjectNode>> all() {
    List<Map.Entry<String, ObjectNode>> out = new ArrayList<>();
    for (Map.Entry<String, ObjectNode> e : objects.entrySet()) {
      out.add(Map.entry(e.getKey().substring(0, e.getKey().indexOf('\u0000')), e.getValue()));
    }
    return out;
  }

  /** All objects of every resource in one namespace. */
  List<Map.Entry<String, ObjectNode>> inNamespace(String namespace) {
    List<Map.Entry<String, ObjectNode>> out = new ArrayList<>();
    String infix = '\u0000' + namespace + '\u0000';
    for (Map.Entry<String, ObjectNode> e : objects.entrySet()) {
      if (e.getKey().contains(infix)) {
        out.add(Map.entry(e.getKey().substring(0, e.getKey().indexOf('\u0000')), e.getValue()));
      }
    }
    return out;
  }
}
