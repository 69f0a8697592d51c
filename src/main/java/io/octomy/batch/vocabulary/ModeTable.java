package io.octomy.batch.vocabulary;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Percent of capacity a node offers per resource name in each mode. The key {@code "*"} covers
 * every name a row does not list. Percentages are whole numbers from 0 to 100, so an offer never
 * exceeds capacity.
 */
public record ModeTable(Map<NodeMode, Map<String, Integer>> rows) {

  /** The row key that covers every resource name a row does not list. */
  public static final String ANY = "*";

  public ModeTable {
    EnumMap<NodeMode, Map<String, Integer>> copy = new EnumMap<>(NodeMode.class);
    rows.forEach((mode, row) -> copy.put(mode, Map.copyOf(row)));
    rows = Collections.unmodifiableMap(copy);
  }

  /**
   * The defaults of the design: Interactive hands batch work half the cores and a quarter of the
   * memory, no GPU.
   */
  public static ModeTable defaults() {
    Map<NodeMode, Map<String, Integer>> rows = new EnumMap<>(NodeMode.class);
    rows.put(
        NodeMode.Interactive,
        ordered(
            "octomy.io/cpu-milli", 50, "octomy.io/memory-bytes", 25, "octomy.io/gpu", 0, ANY, 50));
    rows.put(
        NodeMode.Background,
        ordered(
            "octomy.io/cpu-milli",
            75,
            "octomy.io/memory-bytes",
            50,
            "octomy.io/gpu",
            100,
            ANY,
            75));
    rows.put(NodeMode.Drone, ordered(ANY, 100));
    rows.put(NodeMode.Off, ordered(ANY, 0));
    return new ModeTable(rows);
  }

  /**
   * Percent of capacity that {@code mode} offers for {@code resource}; 0 when the row has neither
   * the name nor {@code "*"}.
   */
  public int percent(NodeMode mode, String resource) {
    Map<String, Integer> row = rows.get(mode);
    if (row == null) {
      return 0;
    }
    Integer p = row.get(resource);
    if (p == null) {
      p = row.get(ANY);
    }
    return p == null ? 0 : p;
  }

  /**
   * The offer for one resource: {@code capacity * percent / 100}, rounded down. The one rule for
   * admission and for what agents report: a percent outside 0..100 is clamped into it, so an offer
   * never exceeds capacity; {@link NodeMode#Off} offers nothing whatever its row says; a negative
   * capacity offers nothing; and the product is computed as {@code (capacity / 100) * percent +
   * (capacity % 100) * percent / 100}, which cannot overflow.
   */
  public long offer(NodeMode mode, String resource, long capacity) {
    long percent = Math.min(100, Math.max(0, percent(mode, resource)));
    if (mode == NodeMode.Off || percent == 0 || capacity <= 0) {
      return 0;
    }
    return capacity / 100 * percent + capacity % 100 * percent / 100;
  }

  /** The offer for every resource of a capacity map. */
  public Map<String, Long> offer(NodeMode mode, Map<String, Long> capacity) {
    Map<String, Long> out = new LinkedHashMap<>();
    capacity.forEach((name, qty) -> out.put(name, offer(mode, name, qty)));
    return out;
  }

  /** A copy in which {@code overrides} replace whole rows. */
  public ModeTable with(Map<NodeMode, Map<String, Integer>> overrides) {
    Map<NodeMode, Map<String, Integer>> merged = new EnumMap<>(NodeMode.class);
    merged.putAll(rows);
    merged.putAll(overrides);
    return new ModeTable(merged);
  }

  private static Map<String, Integer> ordered(Object... kv) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Integer) kv[i + 1]);
    }
    return m;
  }
}
