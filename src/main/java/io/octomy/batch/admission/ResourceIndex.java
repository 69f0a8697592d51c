package io.octomy.batch.admission;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Interns resource names to small ids, assigned in name order so that every list the pass builds
 * from ids (requests, messages) comes out sorted by name without sorting again.
 */
final class ResourceIndex {

  private final String[] names;
  private final Map<String, Integer> ids;

  ResourceIndex(Snapshot snapshot) {
    Set<String> all = new HashSet<>();
    snapshot.nodes().forEach(n -> all.addAll(n.capacity().keySet()));
    snapshot.jobs().forEach(j -> all.addAll(j.requests().keySet()));
    names = all.toArray(String[]::new);
    Arrays.sort(names);
    ids = new HashMap<>(names.length * 2);
    for (int i = 0; i < names.length; i++) {
      ids.put(names[i], i);
    }
  }

  int count() {
    return names.length;
  }

  String name(int id) {
    return names[id];
  }

  /** The id of a name, or -1 when no job requests it and no node has it. */
  int id(String name) {
    Integer id = ids.get(name);
    return id == null ? -1 : id;
  }
}
