package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.octomy.batch.evidence.FuzzedFields.Field;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.sessions.JqwikSession;

/**
 * A structure-aware fuzzer over the whole product: standalone as a user starts it (a child JVM: API
 * server, controller, a {@code Process} agent running jobs), and for each field of {@link
 * FuzzedFields} and each kind of {@link FieldMutations} one valid object damaged at that field,
 * sent through every write verb. After each batch the server must answer, every answer be a 2xx or
 * a 4xx with a message, and a fresh valid job run to Succeeded; restarts must serve every
 * acknowledged object. {@link SchemaFuzzE2E} runs a short version; the long one is this main:
 *
 * <pre>java -cp $CP io.octomy.batch.evidence.SchemaFuzz --shapes all --seed 7</pre>
 */
public final class SchemaFuzz {

  static final List<String> OBJECT_VERBS =
      List.of(
          "create",
          "update",
          "merge-patch",
          "json-patch",
          "strategic-merge-patch",
          "apply",
          "status");
  static final List<String> DELETE_VERBS = List.of("delete", "delete-collection");

  /** One field damaged one way. */
  record Shape(Field field, String kind) {
    @Override
    public String toString() {
      return kind + " at " + field.dotted();
    }
  }

  /** What a run tried and what broke. */
  record Result(
      int objects,
      int shapes,
      Map<String, Map<Integer, Integer>> codes,
      int serverErrors,
      int withoutMessage,
      int crashes,
      int restarts,
      int unstartable,
      int jammed,
      int checkedAfterRestarts,
      int lost,
      List<String> examples) {

    boolean passed() {
      return serverErrors + withoutMessage + crashes + unstartable + jammed + lost == 0;
    }

    @Override
    public String toString() {
      return String.format(
          "schema fuzz -> standalone: %d objects sent, %d shapes (mutation kind x field);"
              + " answers per verb %s; 5xx %d, 4xx without a message %d; crashes %d; restarts %d,"
              + " unstartable states %d; jammed agents %d; acknowledged objects checked after"
              + " restarts %d, lost %d",
          objects,
          shapes,
          codes,
          serverErrors,
          withoutMessage,
          crashes,
          restarts,
          unstartable,
          jammed,
          checkedAfterRestarts,
          lost);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GROUP = "/apis/batch.octomy.io/v1alpha1/";
  private static final String NS = "fuzz";

  private final Path work;
  private final Random random;
  private final FieldMutations mutations;
  private final Map<String, Map<Integer, Integer>> codes = new TreeMap<>();

  /** Object URL -> uid, for every object whose last write was acknowledged. */
  private final Map<String, String> acknowledged = new LinkedHashMap<>();

  private final List<String> examples = new ArrayList<>();
  private ChildJvm child;
  private RawHttps http;
  private int objects;
  private int serial;
  private int starts;
  private int serverErrors;
  private int withoutMessage;
  private int crashes;
  private int unstartable;
  private int jammed;
  private int lost;
  private int checkedAfterRestart;
  private long logRead;

  private SchemaFuzz(Path work, long seed) {
    this.work = work;
    this.random = new Random(seed);
    this.mutations = new FieldMutations(random);
  }

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(argv, Map.of("shapes", "all", "batch", "100", "restart-every", "5", "seed", "7"));
    Path work = Files.createTempDirectory("schema-fuzz");
    int shapes = a.string("shapes").equals("all") ? -1 : a.integer("shapes");
    System.out.println(
        "schema fuzz " + a + ": " + allShapes().size() + " shapes in all, state in " + work);
    long t0 = System.nanoTime();
    Result r = run(work, shapes, a.integer("batch"), a.integer("restart-every"), a.integer("seed"));
    System.out.printf("%s; %.0f s%n", r, (System.nanoTime() - t0) / 1e9);
    r.examples().forEach(e -> System.out.println("  " + e));
    System.out.println(r.passed() ? "PASS" : "FAIL");
    System.exit(r.passed() ? 0 : 1);
  }

  /** Every shape of the product's kinds. */
  static List<Shape> allShapes() {
    List<Shape> shapes = new ArrayList<>();
    for (Field f : FuzzedFields.all()) {
      for (String kind : FieldMutations.KINDS) {
        if (FieldMutations.applies(kind, f.type())) {
          shapes.add(new Shape(f, kind));
        }
      }
    }
    return shapes;
  }

  /**
   * {@code count} shapes (-1: all; the issue's writes first, the rest in a seeded order), {@code
   * batch} shapes between checks, a restart after every {@code restartEvery} batches and at the
   * end.
   */
  static Result run(Path work, int count, int batch, int restartEvery, long seed) throws Exception {
    JqwikSession.start(String.valueOf(seed));
    try {
      return run(new SchemaFuzz(work, seed), count, batch, restartEvery);
    } finally {
      JqwikSession.finish();
    }
  }

  private static Result run(SchemaFuzz fuzz, int count, int batch, int restartEvery)
      throws Exception {
    List<Shape> all = allShapes();
    List<Shape> first = new ArrayList<>();
    List<Shape> rest = new ArrayList<>();
    for (Shape s : all) {
      boolean issueCase =
          (s.kind().equals("wrong-type")
                  && s.field().dotted().endsWith(":metadata.ownerReferences"))
              || (s.kind().equals("null-item") && s.field().dotted().endsWith("containers[].env"))
              || (s.kind().equals("control-characters")
                  && s.field().dotted().endsWith("containers[].workingDir"))
              // and the preconditions a collection delete ignored
              || (s.kind().equals("wrong-type")
                  && s.field().dotted().equals("DeleteOptions:preconditions.uid"));
      (issueCase ? first : rest).add(s);
    }
    Collections.shuffle(rest, fuzz.random);
    first.addAll(rest);
    List<Shape> shapes = count < 0 ? first : first.subList(0, Math.min(count, first.size()));
    int restarts = 0;
    try {
      fuzz.start();
      for (int b = 0; b * batch < shapes.size(); b++) {
        for (Shape s : shapes.subList(b * batch, Math.min(shapes.size(), (b + 1) * batch))) {
          fuzz.send(s);
          if (fuzz.crashes > 0) {
            break; // the check below says why
          }
        }
        boolean last = (b + 1) * batch >= shapes.size();
        if (!fuzz.check("batch " + b)) {
          break;
        }
        if (last || (b + 1) % restartEvery == 0) {
          restarts++;
          if (!fuzz.restart() || !fuzz.check("restart " + restarts)) {
            break;
          }
        }
      }
    } finally {
      if (fuzz.child != null) {
        fuzz.child.close();
      }
    }
    return new Result(
        fuzz.objects,
        shapes.size(),
        fuzz.codes,
        fuzz.serverErrors,
        fuzz.withoutMessage,
        fuzz.crashes,
        restarts,
        fuzz.unstartable,
        fuzz.jammed,
        fuzz.checkedAfterRestart,
        fuzz.lost,
        fuzz.examples);
  }

  // ---- sending ----

  private void send(Shape s) {
    String kind = s.field().kind();
    if (kind.equals("DeleteOptions")) {
      for (String verb : DELETE_VERBS) {
        String name = name();
        String target = post("BatchJob", seed("BatchJob", name));
        if (target == null) {
          continue;
        }
        ObjectNode options = JSON.createObjectNode();
        options.put("apiVersion", "v1").put("kind", "DeleteOptions");
        mutate(options, s);
        String url =
            verb.equals("delete")
                ? target
                : collection("BatchJob") + "?labelSelector=" + encode("fuzz-id=" + name);
        if (answer(verb, s, http.send("DELETE", url, "application/json", bytes(options))) < 300) {
          acknowledged.remove(target);
        }
      }
      return;
    }
    String name = name();
    ObjectNode created = seed(kind, name + "c");
    if (s.field().path().get(0).equals("metadata")
        && s.field().path().get(1).equals("generateName")) {
      ((ObjectNode) created.get("metadata")).remove("name");
    }
    mutate(created, s);
    RawHttps.Answer a = http.send("POST", collection(kind), "application/json", bytes(created));
    acknowledge(collection(kind), answer("create", s, a), a);

    String target = post(kind, seed(kind, name));
    if (target == null) {
      return;
    }
    for (String verb : OBJECT_VERBS.subList(1, OBJECT_VERBS.size())) {
      RawHttps.Answer current = http.send("GET", target, null, new byte[0]);
      if (current.code() != 200) {
        record("GET after " + verb, current.code(), current.body(), s);
        return;
      }
      ObjectNode whole = (ObjectNode) current.json();
      ObjectNode sent = whole.deepCopy();
      mutate(sent, s);
      ObjectNode patch = JSON.createObjectNode();
      mutate(patch, s);
      RawHttps.Answer w =
          switch (verb) {
            case "update" -> http.send("PUT", target, "application/json", bytes(sent));
            case "merge-patch" ->
                http.send("PATCH", target, "application/merge-patch+json", bytes(patch));
            case "json-patch" ->
                http.send("PATCH", target, "application/json-patch+json", jsonPatch(whole, s));
            case "strategic-merge-patch" ->
                http.send("PATCH", target, "application/strategic-merge-patch+json", bytes(patch));
            case "apply" -> {
              ObjectNode applied = seed(kind, name);
              mutate(applied, s);
              yield http.send(
                  "PATCH",
                  target + "?fieldManager=fuzz&force=true",
                  "application/apply-patch+yaml",
                  bytes(applied));
            }
            default -> http.send("PUT", target + "/status", "application/json", bytes(sent));
          };
      acknowledge(collection(kind), answer(verb, s, w), w);
    }
    if (kind.equals("BatchQueue")) {
      restoreSpec(kind, name + "c");
      restoreSpec(kind, name);
    }
  }

  /**
   * A queue whose damage was valid goes back to its seed's spec: an empty {@code matchLabels}
   * claims every namespace, and two such queues hold the fresh job's namespace as a QueueConflict
   * (by design), which would hide whether the agent still runs jobs.
   */
  private void restoreSpec(String kind, String name) {
    String url = collection(kind) + "/" + name;
    for (int attempt = 0; attempt < 3; attempt++) {
      RawHttps.Answer current = http.send("GET", url, null, new byte[0]);
      if (current.code() != 200) {
        return;
      }
      ObjectNode restored = (ObjectNode) current.json();
      restored.set("spec", seed(kind, name).get("spec"));
      if (http.send("PUT", url, "application/json", bytes(restored)).code() != 409) {
        return;
      }
    }
  }

  private String name() {
    return "f" + (serial++);
  }

  /** A valid object created as the target of a shape; its URL, or null if it was refused. */
  private String post(String kind, ObjectNode seed) {
    RawHttps.Answer a = http.send("POST", collection(kind), "application/json", bytes(seed));
    if (a.code() != 201) {
      record("valid seed", a.code(), a.body(), null);
      if (a.code() < 500 && examples.size() < 40) {
        examples.add("valid " + kind + " refused: " + a.code() + " " + cut(a.body()));
      }
      return null;
    }
    String url = collection(kind) + "/" + a.json().path("metadata").path("name").asText();
    acknowledged.put(url, a.json().path("metadata").path("uid").asText());
    return url;
  }

  private void acknowledge(String collection, int code, RawHttps.Answer a) {
    if (code >= 200 && code < 300) {
      String name = a.json().path("metadata").path("name").asText("");
      if (!name.isEmpty()) {
        acknowledged.put(collection + "/" + name, a.json().path("metadata").path("uid").asText());
      }
    }
  }

  /** Counts an answer; a 5xx, no answer, or a 4xx without a message is a finding. */
  private int answer(String verb, Shape s, RawHttps.Answer a) {
    objects++;
    codes.computeIfAbsent(verb, k -> new TreeMap<>()).merge(a.code(), 1, Integer::sum);
    record(verb, a.code(), a.body(), s);
    return a.code();
  }

  private void record(String what, int code, String body, Shape s) {
    if (code < 0) {
      crashes++;
      finding("no answer to " + what + " of " + s + ": " + cut(body));
    } else if (code >= 500) {
      serverErrors++;
      finding(code + " to " + what + " of " + s + ": " + cut(body));
    } else if (code >= 400 && message(body).isBlank()) {
      withoutMessage++;
      finding(code + " without a message to " + what + " of " + s + ": " + cut(body));
    }
  }

  private static String message(String body) {
    try {
      return JSON.readTree(body).path("message").asText("");
    } catch (IOException e) {
      return "";
    }
  }

  private void finding(String what) {
    if (examples.size() < 40) {
      examples.add(what);
    }
  }

  // ---- the objects ----

  static String collection(String kind) {
    return switch (kind) {
      case "BatchJob" -> GROUP + "namespaces/" + NS + "/batchjobs";
      case "BatchJobProfile" -> GROUP + "namespaces/" + NS + "/batchjobprofiles";
      case "BatchNode" -> GROUP + "batchnodes";
      case "BatchQueue" -> GROUP + "batchqueues";
      default -> throw new IllegalArgumentException(kind);
    };
  }

  /**
   * A valid object of {@code kind} with every part the fuzzer damages present. Jobs run {@code
   * true} on the local node; nodes carry no agent and no Ready condition, so nothing is admitted to
   * them; each queue holds a namespace of its own name, with room to spare (two queues holding the
   * fuzz namespace would stop its jobs as a QueueConflict).
   */
  static ObjectNode seed(String kind, String name) {
    String spec =
        switch (kind) {
          case "BatchJob" ->
              """
              {"type": "fuzzjob", "resources": {"requests": {"octomy.io/cpu-milli": 10},
                "limits": {"octomy.io/cpu-milli": 1000}},
               "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
                 {"name": "main", "image": "unused", "command": ["true"], "args": [],
                  "env": [{"name": "A", "value": "b"}]}]}}}
              """;
          case "BatchNode" ->
              "{\"mode\": \"Off\", \"executor\": \"Process\","
                  + " \"resources\": {\"octomy.io/cpu-milli\": 1000}}";
          case "BatchQueue" ->
              "{\"namespaces\": [\""
                  + name
                  + "\"], \"weight\": 1,"
                  + " \"max\": {\"octomy.io/cpu-milli\": 1000000},"
                  + " \"min\": {\"octomy.io/cpu-milli\": 0}}";
          default -> "{}";
        };
    try {
      ObjectNode o = JSON.createObjectNode();
      o.put("apiVersion", "batch.octomy.io/v1alpha1").put("kind", kind);
      ObjectNode meta = o.putObject("metadata").put("name", name);
      meta.putObject("labels").put("fuzz-id", name);
      meta.putObject("annotations").put("example.com/note", "fuzz");
      o.set("spec", JSON.readTree(spec));
      return o;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Puts the shape's value at its field, making the containers on the way. */
  void mutate(ObjectNode root, Shape s) {
    List<String> path = s.field().path();
    JsonNode at = root;
    for (int i = 0; i < path.size(); i++) {
      String token = path.get(i);
      boolean last = i == path.size() - 1;
      String next = last ? null : path.get(i + 1);
      JsonNode value =
          last
              ? (s.kind().equals("unknown-field") ? unknownField(at, token) : value(s))
              : container(next);
      if (at instanceof ObjectNode o) {
        String key = token.equals(FuzzedFields.ENTRY) ? FuzzedFields.MAP_KEY : token;
        if (last || !(o.get(key) instanceof ObjectNode || o.get(key) instanceof ArrayNode)) {
          o.set(key, value);
        }
        at = o.get(key);
      } else if (at instanceof ArrayNode a) {
        if (a.isEmpty()) {
          a.add(value);
        } else if (last || !(a.get(0).isContainerNode())) {
          a.set(0, value);
        }
        at = a.get(0);
      } else {
        return; // a parent the mutation replaced already
      }
    }
  }

  private JsonNode value(Shape s) {
    return mutations.value(s.kind(), s.field().type());
  }

  private JsonNode unknownField(JsonNode parent, String token) {
    JsonNode existing = parent.get(token.equals(FuzzedFields.ENTRY) ? FuzzedFields.MAP_KEY : token);
    ObjectNode o = existing instanceof ObjectNode e ? e.deepCopy() : JSON.createObjectNode();
    o.put(mutations.unknownFieldName(), "unknown " + serial);
    return o;
  }

  private static JsonNode container(String next) {
    return next.equals(FuzzedFields.ITEM) ? JSON.createArrayNode() : JSON.createObjectNode();
  }

  /** One {@code add} at the deepest part of the path the object already has. */
  private byte[] jsonPatch(ObjectNode current, Shape s) {
    List<String> path = s.field().path();
    StringBuilder pointer = new StringBuilder();
    JsonNode at = current;
    int i = 0;
    for (; i < path.size() - 1; i++) {
      String token = path.get(i);
      String key = token.equals(FuzzedFields.ENTRY) ? FuzzedFields.MAP_KEY : token;
      JsonNode child = token.equals(FuzzedFields.ITEM) ? at.get(0) : at.get(key);
      if (child == null || !child.isContainerNode()) {
        break;
      }
      pointer.append('/').append(token.equals(FuzzedFields.ITEM) ? "0" : escape(key));
      at = child;
    }
    String token = path.get(i);
    String key = token.equals(FuzzedFields.ENTRY) ? FuzzedFields.MAP_KEY : token;
    ObjectNode holder = JSON.createObjectNode();
    List<String> inner = new ArrayList<>(List.of("v"));
    inner.addAll(path.subList(i, path.size()));
    mutate(holder, new Shape(new Field(s.field().kind(), inner, s.field().type()), s.kind()));
    boolean item = token.equals(FuzzedFields.ITEM);
    JsonNode value = item ? holder.path("v").get(0) : holder.path("v").get(key);
    ArrayNode ops = JSON.createArrayNode();
    ops.addObject()
        .put("op", "add")
        .put("path", pointer + "/" + (item ? "-" : escape(key)))
        .set("value", value);
    return bytes(ops);
  }

  private static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  // ---- the product ----

  private void start() throws IOException, InterruptedException {
    String log = "standalone-" + (starts++);
    child =
        ChildJvm.startIn(
            work,
            work.resolve(log + ".log"),
            List.of("-Xmx600m"),
            "io.octomy.batch.Main",
            "standalone",
            "--state-dir",
            work.resolve("state").toString(),
            "--node",
            StandaloneChild.NODE,
            "--capacity",
            "octomy.io/cpu-milli=64000");
    logRead = 0;
    Path kubeconfig = Path.of(child.awaitLine("export KUBECONFIG=", Duration.ofSeconds(90)));
    http = RawHttps.fromKubeconfig(kubeconfig);
    http.send(
        "POST",
        "/api/v1/namespaces",
        "application/json",
        ("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + NS + "\"}}")
            .getBytes(StandardCharsets.UTF_8));
  }

  /**
   * SIGTERM and a start on the same state: every acknowledged object served just before must be
   * served after. Objects the product may delete by itself meanwhile (an owner reference, whose
   * owner the garbage collector looks for; a time to live; a delete under way) are not counted.
   */
  private boolean restart() throws InterruptedException {
    Map<String, String> kept = new HashMap<>();
    for (Map.Entry<String, String> e : acknowledged.entrySet()) {
      RawHttps.Answer a = http.send("GET", e.getKey(), null, new byte[0]);
      JsonNode meta = a.json().path("metadata");
      if (a.code() == 200
          && meta.path("uid").asText().equals(e.getValue())
          && meta.path("ownerReferences").isMissingNode()
          && meta.path("deletionTimestamp").isMissingNode()
          && a.json().path("spec").path("ttlSecondsAfterFinished").isMissingNode()) {
        kept.put(e.getKey(), e.getValue());
      }
    }
    child.stop();
    try {
      start();
    } catch (IOException | RuntimeException e) {
      unstartable++;
      finding("the state did not start again: " + cut(String.valueOf(e)));
      return false;
    }
    for (Map.Entry<String, String> e : kept.entrySet()) {
      RawHttps.Answer a = http.send("GET", e.getKey(), null, new byte[0]);
      if (a.code() != 200 || !a.json().path("metadata").path("uid").asText().equals(e.getValue())) {
        lost++;
        finding("acknowledged " + e.getKey() + " came back as " + a.code() + " " + cut(a.body()));
      }
    }
    checkedAfterRestart += kept.size();
    return true;
  }

  /**
   * The product still serves: the process is alive, {@code /version} answers, a fresh job runs to
   * Succeeded on the local node, and its log holds no reader that stopped.
   */
  private boolean check(String when) throws IOException, InterruptedException {
    if (!child.alive() || http.send("GET", "/version", null, new byte[0]).code() != 200) {
      crashes++;
      String log = logSince();
      finding(
          when
              + ": standalone stopped serving; its log ends: "
              + log.substring(Math.max(0, log.length() - 3000)));
      return false;
    }
    String canary = "canary-" + (serial++);
    ObjectNode job = seed("BatchJob", canary);
    RawHttps.Answer a =
        http.send("POST", GROUP + "namespaces/default/batchjobs", "application/json", bytes(job));
    String phase = "";
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (a.code() == 201 && System.nanoTime() < deadline && !phase.equals("Succeeded")) {
      Thread.sleep(200);
      JsonNode got =
          http.send("GET", GROUP + "namespaces/default/batchjobs/" + canary, null, new byte[0])
              .json();
      phase =
          got.path("status").path("phase").asText("")
              + " "
              + got.path("status").path("message").asText("");
      phase = phase.startsWith("Succeeded") ? "Succeeded" : phase;
    }
    if (!phase.equals("Succeeded")) {
      jammed++;
      finding(when + ": a fresh job did not succeed (" + a.code() + ", " + phase + ")");
    }
    String log = logSince();
    for (String line : log.split("\n")) {
      if (line.contains("Stopping the operator") || line.contains("Exception in thread")) {
        crashes++;
        finding(when + ": " + cut(line));
      }
    }
    return true;
  }

  private String logSince() throws IOException {
    String all = Files.readString(work.resolve("standalone-" + (starts - 1) + ".log"));
    String since = all.substring((int) Math.min(logRead, all.length()));
    logRead = all.length();
    return since;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(JsonNode n) {
    try {
      return JSON.writeValueAsBytes(n);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String cut(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }
}
