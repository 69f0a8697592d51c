package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The visible objects, indexed by resource/namespace/name in a sorted map, each kept as the JSON
 * text it was committed as, in compact form ({@link CompactText}).
 *
 * <p>Why a sorted map: a single-object get, create, patch or update is one O(log n) lookup (the
 * stock mock scans every object), and a list of one resource, or of one resource in one namespace,
 * is a range of adjacent keys.
 *
 * <p>Why text rather than a tree: a job of 2 KB of JSON took about 9 KB as a Jackson tree (a map
 * per object, an entry per field, a node per value), and the text is what was committed anyway, so
 * it costs nothing more to keep; packed, about 300 bytes. Every read unpacks and parses a fresh
 * tree, which its caller owns.
 *
 * <p>Only {@link ObjectStore} changes it, under its write lock and once a write is durable; reads
 * do not lock.
 */
final class ObjectIndex {

  private static final Logger LOG = LoggerFactory.getLogger(ObjectIndex.class);

  private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
  private final ObjectMapper json;

  private ObjectIndex(ObjectMapper json) {
    this.json = json;
  }

  /** One stored row as read back: its committed text, or why it cannot be served. */
  private record Loaded(SqliteStateStore.Row row, byte[] packed, String problem) {}

  /**
   * Loads every stored object. A row that the product could not read back (written by an older
   * version, or damaged) is moved aside into the database's {@code quarantine} table and named in
   * the log; everything else is served.
   *
   * <p>Rows are read, checked and packed on every core (nothing else runs yet): on one, a restart
   * on 20,000 jobs spent about five seconds here.
   */
  static ObjectIndex load(ObjectMapper json, SqliteStateStore db, CommitGuard guard) {
    ObjectIndex index = new ObjectIndex(json);
    List<Loaded> loaded = db.loadAll().parallelStream().map(row -> read(guard, row)).toList();
    for (Loaded l : loaded) {
      SqliteStateStore.Row row = l.row();
      if (l.packed() != null) {
        index.objects.put(key(row.resource(), row.namespace(), row.name()), l.packed());
        continue;
      }
      db.quarantine(row, l.problem());
      LOG.warn(
          "state database: object {} {}/{} cannot be served ({}); it was moved to the quarantine"
              + " table of the state database and everything else is served",
          row.resource(),
          row.namespace(),
          row.name(),
          l.problem());
    }
    return index;
  }

  private static Loaded read(CommitGuard guard, SqliteStateStore.Row row) {
    try {
      String text = guard.checkStored(row.resource(), row.namespace(), row.name(), row.body());
      return text != null
          ? new Loaded(row, CompactText.pack(text), null)
          : new Loaded(row, null, "not a JSON object");
    } catch (JsonProcessingException e) {
      return new Loaded(row, null, e.getOriginalMessage());
    } catch (ApiException e) {
      return new Loaded(row, null, e.getMessage());
    }
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

  /** A fresh tree of the object under {@link #key}, or {@code null}. */
  ObjectNode get(String key) {
    return parse(objects.get(key));
  }

  /** The committed text of the object under {@link #key} in compact form, or {@code null}. */
  byte[] packed(String key) {
    return objects.get(key);
  }

  /**
   * Keeps {@code text}, the object as committed (what {@link CommitGuard#check} returned).
   *
   * @return the text as kept, in compact form
   */
  byte[] put(String key, String text) {
    byte[] packed = CompactText.pack(text);
    objects.put(key, packed);
    return packed;
  }

  void remove(String key) {
    objects.remove(key);
  }

  /** Objects of one resource, in one namespace or (namespace {@code null}) in all. */
  List<ObjectNode> range(String resource, String namespace) {
    List<ObjectNode> out = new ArrayList<>();
    for (ListedText listed : rangeText(resource, namespace)) {
      out.add(parse(listed.text()));
    }
    return out;
  }

  /**
   * One object of a list as committed, under its key within the resource ({@code
   * namespace\u0000name}, the order of a list); its text is unpacked when asked for.
   */
  record ListedText(String key, byte[] packed) {
    String text() {
      return CompactText.unpack(packed);
    }
  }

  /** The committed text of the objects of one resource, as {@link #range} without reading them. */
  List<ListedText> rangeText(String resource, String namespace) {
    return rangeText(resource, namespace, null);
  }

  /**
   * As {@link #rangeText(String, String)}, only the objects after {@code after} (a {@link
   * ListedText#key}, or {@code null} for all): a list's next page starts where the last ended
   * rather than walking every object before it again.
   */
  List<ListedText> rangeText(String resource, String namespace, String after) {
    String from = prefix(resource, namespace);
    String to = from + '\uffff';
    int keyStart = resource.length() + 1;
    String start = after == null ? from : resource + '\u0000' + after;
    boolean inclusive = after == null || start.compareTo(from) < 0;
    if (start.compareTo(from) < 0) {
      start = from;
    }
    List<ListedText> out = new ArrayList<>();
    if (start.compareTo(to) >= 0) {
      return out;
    }
    // '\uffff' sorts after every character used in names, so this is exactly the keys with that
    // prefix
    for (Map.Entry<String, byte[]> e : objects.subMap(start, inclusive, to, false).entrySet()) {
      out.add(new ListedText(e.getKey().substring(keyStart), e.getValue()));
    }
    return out;
  }

  /**
   * Every object's metadata with its resource: a tree holding only {@code metadata}, read on every
   * core while the rest of each text is skipped. The garbage collector's start reads only owners,
   * uids and deletion state; reading every object whole took a second on 21,000 jobs.
   */
  List<Map.Entry<String, ObjectNode>> allMetadata() {
    return objects.entrySet().parallelStream()
        .map(
            e ->
                Map.entry(
                    e.getKey().substring(0, e.getKey().indexOf('\u0000')),
                    metadataOf(e.getValue())))
        .toList();
  }

  /**
   * The object's metadata without its field owners ({@code managedFields}, most of a job's
   * metadata), which the one reader of {@link #allMetadata}, the garbage collector's start, does
   * not read; nothing after the metadata is read either.
   */
  private ObjectNode metadataOf(byte[] packed) {
    ObjectNode out = json.createObjectNode();
    try (JsonParser p = json.createParser(CompactText.utf8(packed))) {
      p.nextToken(); // the object's start
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean metadata = p.currentName().equals("metadata");
        if (p.nextToken() != JsonToken.START_OBJECT || !metadata) {
          p.skipChildren();
          continue;
        }
        ObjectNode meta = out.putObject("metadata");
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          if (field.equals("managedFields")) {
            p.skipChildren();
          } else {
            meta.set(field, json.readTree(p));
          }
        }
        return out;
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("committed text does not read back", e);
    }
  }

  /** All objects of every resource in one namespace. */
  List<Map.Entry<String, ObjectNode>> inNamespace(String namespace) {
    List<Map.Entry<String, ObjectNode>> out = new ArrayList<>();
    String infix = '\u0000' + namespace + '\u0000';
    for (Map.Entry<String, byte[]> e : objects.entrySet()) {
      if (e.getKey().contains(infix)) {
        out.add(
            Map.entry(e.getKey().substring(0, e.getKey().indexOf('\u0000')), parse(e.getValue())));
      }
    }
    return out;
  }

  /** A tree of committed text in compact form; {@code null} stays null. */
  ObjectNode parse(byte[] packed) {
    if (packed == null) {
      return null;
    }
    try {
      return (ObjectNode) json.readTree(CompactText.utf8(packed));
    } catch (IOException e) {
      throw new IllegalStateException("committed text does not read back", e);
    }
  }

  /** A tree of committed text, which {@link CommitGuard} checked reads back. */
  ObjectNode parse(String text) {
    if (text == null) {
      return null;
    }
    try {
      return (ObjectNode) json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("committed text does not read back", e);
    }
  }
}
