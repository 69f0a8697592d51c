package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * (e) Hostile objects sent through every write path of the embedded API server (POST, PUT, JSON
 * patch, merge patch, strategic merge patch, server-side apply) for a ConfigMap and a BatchJob:
 * long keys and names, deep nesting, huge and non-JSON bodies, patch amplification, lone
 * surrogates, wrong types, renames and moves. After each batch the server must still answer, and a
 * restart on the same state directory must serve every object as last acknowledged.
 */
final class HostileWriteFault {

  static final List<String> PATHS =
      List.of("POST", "PUT", "json-patch", "merge-patch", "strategic-merge-patch", "apply");

  record Result(
      Map<String, Integer> triedPerPath,
      Map<String, Map<Integer, Integer>> codesPerPath,
      int serverErrors,
      int noAnswer,
      int restarts,
      int restartsFailed,
      int acknowledgedMissingOrChanged,
      List<String> examples) {

    boolean passed() {
      return serverErrors == 0
          && noAnswer == 0
          && restartsFailed == 0
          && acknowledgedMissingOrChanged == 0;
    }

    @Override
    public String toString() {
      return String.format(
          "hostile writes -> embedded API server: requests tried per write path %s; answers per"
              + " path %s; 5xx answers %d; crashes (a request, or /version after a batch, without"
              + " an answer) %d; restarts %d, states that could not restart %d; acknowledged"
              + " objects missing or changed after a restart %d",
          triedPerPath,
          codesPerPath,
          serverErrors,
          noAnswer,
          restarts,
          restartsFailed,
          acknowledgedMissingOrChanged);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final String BJ = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs";

  private HostileWriteFault() {}

  /** {@code perPath} hostile requests on each path, in {@code batches} batches with restarts. */
  static Result run(Path work, int perPath, int batches, long seed) throws Exception {
    Path state = work.resolve("state");
    Random r = new Random(seed);
    Map<String, Integer> tried = new TreeMap<>();
    Map<String, Map<Integer, Integer>> codes = new TreeMap<>();
    Map<String, JsonNode> acknowledged = new HashMap<>(); // path -> object as answered
    List<String> examples = new ArrayList<>();
    int serverErrors = 0;
    int noAnswer = 0;
    int restartsFailed = 0;
    int missing = 0;
    int perBatch = Math.max(1, perPath / batches);
    List<String> crds = StandaloneRuntime.productCrds();
    for (int b = 0; b < batches; b++) {
      EmbeddedApiServer server;
      try {
        server = EmbeddedApiServer.start(state, 0, crds);
      } catch (RuntimeException e) {
        restartsFailed++;
        examples.add("restart failed: " + e.getMessage());
        break;
      }
      try (server) {
        RawHttps http = new RawHttps(server);
        missing += checkAcknowledged(http, acknowledged, examples);
        for (int i = 0; i < perBatch; i++) {
          String kind = r.nextBoolean() ? CM : BJ;
          String name = "h-" + b + "-" + i;
          RawHttps.Answer seed1 = http.send("POST", kind, "application/json", base(kind, name));
          if (seed1.code() == 201) {
            acknowledged.put(kind + "/" + name, seed1.json());
          }
          for (String path : PATHS) {
            Shape shape = Shape.pick(r, kind, name);
            RawHttps.Answer a = send(http, kind, name, path, shape);
            tried.merge(path, 1, Integer::sum);
            codes.computeIfAbsent(path, k -> new TreeMap<>()).merge(a.code(), 1, Integer::sum);
            if (a.code() < 0) {
              noAnswer++;
            } else if (a.code() >= 500) {
              serverErrors++;
              if (examples.size() < 20) {
                examples.add(path + " " + shape.name() + ": " + a.code() + " " + a.body());
              }
            } else if (a.code() < 300) {
              // what was stored under which name, as the server says (a POST body names it)
              String stored = a.json().path("metadata").path("name").asText();
              acknowledged.put(kind + "/" + stored, a.json());
            }
          }
        }
        if (http.send("GET", "/version", null, new byte[0]).code() != 200) {
          noAnswer++;
        }
      }
    }
    try (EmbeddedApiServer server = EmbeddedApiServer.start(state, 0, crds)) {
      missing += checkAcknowledged(new RawHttps(server), acknowledged, examples);
    } catch (RuntimeException e) {
      restartsFailed++;
      examples.add("final restart failed: " + e.getMessage());
    }
    return new Result(
        tried, codes, serverErrors, noAnswer, batches + 1, restartsFailed, missing, examples);
  }

  /** Every acknowledged object is served exactly as its last write was answered. */
  private static int checkAcknowledged(
      RawHttps http, Map<String, JsonNode> acknowledged, List<String> examples) {
    int missing = 0;
    for (Map.Entry<String, JsonNode> e : acknowledged.entrySet()) {
      RawHttps.Answer a = http.send("GET", e.getKey(), null, new byte[0]);
      if (a.code() != 200 || !a.json().equals(e.getValue())) {
        missing++;
        if (examples.size() < 20) {
          examples.add(
              "acknowledged "
                  + e.getKey()
                  + " came back as "
                  + a.code()
                  + (a.code() == 200 ? " with other content" : ""));
        }
      }
    }
    return missing;
  }

  private static byte[] base(String kind, String name) {
    ObjectNode o = JSON.createObjectNode();
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", name);
    if (kind.equals(CM)) {
      o.put("apiVersion", "v1").put("kind", "ConfigMap").putObject("data").put("a", "b");
    } else {
      o.put("apiVersion", "batch.octomy.io/v1alpha1").put("kind", "BatchJob");
      o.putObject("spec").putObject("template");
    }
    return bytes(o);
  }

  static byte[] bytes(JsonNode n) {
    try {
      return JSON.writeValueAsBytes(n);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static RawHttps.Answer send(
      RawHttps http, String kind, String name, String path, Shape s) {
    String one = kind + "/" + name;
    return switch (path) {
      case "POST" -> http.send("POST", kind, s.contentType(), s.object(s.postName()));
      case "PUT" -> http.send("PUT", one, s.contentType(), s.object(name));
      case "json-patch" ->
          http.send("PATCH", one, "application/json-patch+json", s.jsonPatch(name));
      case "merge-patch" -> http.send("PATCH", one, "application/merge-patch+json", s.object(name));
      case "strategic-merge-patch" ->
          http.send("PATCH", one, "application/strategic-merge-patch+json", s.object(name));
      default ->
          http.send(
              "PATCH", one + "?fieldManager=fuzz", "application/apply-patch+yaml", s.object(name));
    };
  }

  /** One hostile object, shaped for each write path. */
  record Shape(String name, String postName, String contentType, JsonNode extra, byte[] raw) {

    static final String[] NAMES = {
      "long-annotation-key",
      "long-label-value",
      "deep-nesting",
      "deep-nesting-997",
      "huge-body",
      "over-object-limit",
      "patch-amplification",
      "too-many-ops",
      "lone-surrogate",
      "long-name",
      "bad-name",
      "wrong-type-labels",
      "not-an-object",
      "not-json",
      "xml-body",
      "rename",
      "move-namespace",
      "many-annotations",
      "valid-change"
    };

    static Shape pick(Random r, String kind, String name) {
      String n = NAMES[r.nextInt(NAMES.length)];
      ObjectNode extra = JSON.createObjectNode();
      String postName = name + "-p" + r.nextInt(1_000_000);
      String type = "application/json";
      byte[] raw = null;
      switch (n) {
        case "long-annotation-key" ->
            extra.putObject("metadata").putObject("annotations").put("k".repeat(60_000), "v");
        case "long-label-value" ->
            extra
                .putObject("metadata")
                .putObject("labels")
                .put("app", "v".repeat(64 + r.nextInt(500)));
        case "deep-nesting" -> extra.set("extra", nested(513 + r.nextInt(400)));
        case "deep-nesting-997" -> extra.set("extra", nested(990 + r.nextInt(6)));
        case "huge-body" -> raw = new byte[3 * 1024 * 1024 + 1 + r.nextInt(1024)];
        case "over-object-limit" ->
            extra.putObject("extra").put("blob", "x".repeat(1_600_000 + r.nextInt(100_000)));
        case "lone-surrogate" ->
            extra.putObject("metadata").putObject("annotations").put("a", "x\uD800y");
        case "long-name" -> postName = "n".repeat(254 + r.nextInt(100));
        case "bad-name" -> postName = "Bad_Name." + r.nextInt(100);
        case "wrong-type-labels" -> extra.putObject("metadata").put("labels", 5);
        case "not-an-object" -> raw = "[1,2,3]".getBytes(StandardCharsets.UTF_8);
        case "not-json" -> raw = "{\"metadata\":".getBytes(StandardCharsets.UTF_8);
        case "xml-body" -> {
          raw = "<configmap/>".getBytes(StandardCharsets.UTF_8);
          type = "application/xml";
        }
        case "rename" -> extra.putObject("metadata").put("name", name + "-renamed");
        case "move-namespace" -> extra.putObject("metadata").put("namespace", "kube-system");
        case "many-annotations" -> {
          ObjectNode a = extra.putObject("metadata").putObject("annotations");
          for (int i = 0; i < 300; i++) {
            a.put("k" + i, "v".repeat(1000));
          }
        }
        default -> extra.putObject("metadata").putObject("labels").put("ok", "v" + r.nextInt(99));
      }
      return new Shape(n, postName, type, extra, raw);
    }

    byte[] object(String objectName) {
      if (raw != null) {
        return raw;
      }
      ObjectNode o = JSON.createObjectNode();
      o.putObject("metadata").put("name", objectName);
      merge(o, extra);
      if (!name.equals("rename")) {
        ((ObjectNode) o.get("metadata")).put("name", objectName);
      }
      return bytes(o);
    }

    byte[] jsonPatch(String objectName) {
      if (raw != null) {
        return raw;
      }
      ArrayNode ops = JSON.createArrayNode();
      if (name.equals("patch-amplification")) {
        ops.addObject()
            .put("op", "add")
            .put("path", "/amp")
            .set("value", JSON.createArrayNode().add("x".repeat(1000)));
        for (int i = 0; i < 30; i++) {
          ops.addObject().put("op", "copy").put("from", "/amp").put("path", "/amp/-");
        }
        return bytes(ops);
      }
      if (name.equals("too-many-ops")) {
        for (int i = 0; i <= 10_000; i++) {
          ops.addObject().put("op", "test").put("path", "/metadata/name").put("value", objectName);
        }
        return bytes(ops);
      }
      ops.addObject().put("op", "add").put("path", "/metadata/annotations").putObject("value");
      ops.addObject().put("op", "add").put("path", "/metadata/labels").putObject("value");
      extra
          .fields()
          .forEachRemaining(
              f -> {
                if (f.getKey().equals("metadata")) {
                  f.getValue()
                      .fields()
                      .forEachRemaining(
                          m -> {
                            if (m.getValue().isObject()) {
                              m.getValue()
                                  .fields()
                                  .forEachRemaining(
                                      kv ->
                                          ops.addObject()
                                              .put("op", "add")
                                              .put(
                                                  "path",
                                                  "/metadata/"
                                                      + m.getKey()
                                                      + "/"
                                                      + kv.getKey()
                                                          .replace("~", "~0")
                                                          .replace("/", "~1"))
                                              .set("value", kv.getValue()));
                            } else {
                              ops.addObject()
                                  .put("op", "add")
                                  .put("path", "/metadata/" + m.getKey())
                                  .set("value", m.getValue());
                            }
                          });
                } else {
                  ops.addObject()
                      .put("op", "add")
                      .put("path", "/" + f.getKey())
                      .set("value", f.getValue());
                }
              });
      return bytes(ops);
    }

    private static void merge(ObjectNode into, JsonNode from) {
      from.fields()
          .forEachRemaining(
              f -> {
                if (f.getValue().isObject() && into.get(f.getKey()) instanceof ObjectNode o) {
                  merge(o, f.getValue());
                } else {
                  into.set(f.getKey(), f.getValue());
                }
              });
    }

    private static JsonNode nested(int depth) {
      ObjectNode root = JSON.createObjectNode();
      ObjectNode at = root;
      for (int i = 1; i < depth; i++) {
        at = at.putObject("x");
      }
      return root;
    }
  }
}
