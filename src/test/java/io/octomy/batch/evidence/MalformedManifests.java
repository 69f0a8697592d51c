package io.octomy.batch.evidence;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded generator of broken BatchJob manifests, one kind of damage each: fuzzed names, fractions
 * and "500m" strings as quantities, names without a domain, negative amounts, requests above
 * limits, huge maps, wrong types, deep nesting, too many or too long locks and dependencies,
 * self-dependency.
 */
final class MalformedManifests {

  record Manifest(String kind, String name, Map<String, Object> spec) {}

  static final String[] KINDS = {
    "fuzzed-name",
    "fraction",
    "milli-string",
    "no-domain",
    "negative",
    "request-above-limit",
    "huge-map",
    "wrong-type",
    "deep-nesting",
    "too-many-locks",
    "long-lock-key",
    "self-dependency"
  };

  private MalformedManifests() {}

  static List<Manifest> generate(int n, long seed) {
    Random r = new Random(seed);
    List<Manifest> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String kind = KINDS[i % KINDS.length];
      String name = String.format("bad-%04d", i);
      Map<String, Object> spec = baseSpec();
      switch (kind) {
        case "fuzzed-name" -> name = fuzzName(r, i);
        case "fraction" ->
            spec.put("resources", res(Map.of("octomy.io/cpu-milli", 0.5 + r.nextInt(10)), null));
        case "milli-string" ->
            spec.put(
                "resources", res(Map.of("octomy.io/cpu-milli", (1 + r.nextInt(9)) + "00m"), null));
        case "no-domain" ->
            spec.put(
                "resources",
                res(
                    Map.of("cfd-cores-" + r.nextInt(9), 4),
                    Map.of("cfd-cores-" + r.nextInt(9), 4)));
        case "negative" ->
            spec.put("resources", res(Map.of("octomy.io/cpu-milli", -1 - r.nextInt(1000)), null));
        case "request-above-limit" ->
            spec.put(
                "resources",
                res(Map.of("octomy.io/cpu-milli", 4000), Map.of("octomy.io/cpu-milli", 1000)));
        case "huge-map" -> {
          Map<String, Object> req = new LinkedHashMap<>();
          int size = 500 + r.nextInt(2000);
          for (int k = 0; k < size; k++) {
            req.put("example.com/r" + k, 1 + r.nextInt(10));
          }
          spec.put("resources", res(req, null));
        }
        case "wrong-type" -> {
          switch (r.nextInt(6)) {
            case 0 -> spec.put("locks", r.nextInt(100));
            case 1 -> spec.put("after", Map.of("job", "x"));
            case 2 -> spec.put("resources", "lots");
            case 3 -> spec.put("group", List.of(1, 2, 3));
            case 4 -> spec.put("resources", Map.of("requests", List.of(1, 2)));
            default ->
                spec.put("resources", res(Map.of("octomy.io/cpu-milli", Map.of("value", 1)), null));
          }
        }
        case "deep-nesting" -> {
          Object deep = "bottom";
          for (int k = 0; k < 100 + r.nextInt(400); k++) {
            deep = r.nextBoolean() ? Map.of("n", deep) : List.of(deep);
          }
          spec.put(r.nextBoolean() ? "after" : "locks", List.of(deep));
        }
        case "too-many-locks" -> {
          List<String> locks = new ArrayList<>();
          for (int k = 0; k < 17 + r.nextInt(200); k++) {
            locks.add("subject/s" + k);
          }
          spec.put("locks", locks);
        }
        case "long-lock-key" ->
            spec.put("locks", List.of("subject/" + "x".repeat(260 + r.nextInt(5000))));
        case "self-dependency" -> spec.put("after", List.of(name));
        default -> throw new IllegalStateException(kind);
      }
      out.add(new Manifest(kind, name, spec));
    }
    return out;
  }

  private static Map<String, Object> baseSpec() {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put(
        "template",
        Map.of(
            "spec",
            Map.of(
                "containers",
                List.of(
                    Map.of(
                        "name",
                        "main",
                        "image",
                        "busybox",
                        "command",
                        List.of("sh", "-c", "true"))))));
    return spec;
  }

  private static Map<String, Object> res(Map<String, Object> requests, Map<String, Object> limits) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("requests", requests);
    if (limits != null) {
      m.put("limits", limits);
    }
    return m;
  }

  private static String fuzzName(Random r, int i) {
    return switch (r.nextInt(5)) {
      case 0 -> "Bad_Name-" + i;
      case 1 -> "x".repeat(254 + r.nextInt(100)) + i;
      case 2 -> "-leading-dash-" + i;
      case 3 -> "dots..double-" + i;
      default -> "uni-\u00e9\u00df-" + i;
    };
  }
}
