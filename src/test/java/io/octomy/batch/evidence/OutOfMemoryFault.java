package io.octomy.batch.evidence;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * (g) Out of memory in the embedded API server, for real: the server runs in a child JVM with a
 * small heap and holds objects of 1 MB. First it is asked for many full lists at once, 40 MB each,
 * together several times its heap: they are written in pieces, so every one must be answered whole.
 * Then for as many tables of the same objects with each object in its row ({@code
 * includeObject=Object}), which are built whole, more than its heap can build: every request must
 * be answered (200, or 500 {@code InternalError} for one that ran out of memory), at least one must
 * have run out, and afterwards the same process must still serve reads and writes: an error in a
 * worker is answered and the worker lives on.
 */
final class OutOfMemoryFault {

  record Result(
      int lists,
      Map<Integer, Integer> jsonListCodes,
      int wholeJsonLists,
      Map<Integer, Integer> tableCodes,
      int outOfMemoryAnswers,
      int otherAnswers,
      boolean alive,
      boolean servesAfterwards) {

    boolean passed() {
      return wholeJsonLists == lists
          && outOfMemoryAnswers > 0
          && otherAnswers == 0
          && alive
          && servesAfterwards;
    }

    @Override
    public String toString() {
      return String.format(
          "out of memory -> embedded API server (child JVM, heap %s): concurrent full lists %d,"
              + " answered %s, whole %d; concurrent tables with their objects %d, answered %s, of"
              + " which 500 for an OutOfMemoryError %d, other answers or none %d; process alive %s;"
              + " reads and writes served afterwards %s",
          HEAP,
          lists,
          jsonListCodes,
          wholeJsonLists,
          lists,
          tableCodes,
          outOfMemoryAnswers,
          otherAnswers,
          alive,
          servesAfterwards);
    }
  }

  private static final String HEAP = "192m";
  private static final String CM = "/api/v1/namespaces/default/configmaps";
  private static final String TABLE_WITH_OBJECTS = "application/json;as=Table;v=v1;g=meta.k8s.io";
  private static final int OBJECTS = 40;
  private static final String BLOB = "m".repeat(1_000_000);

  private OutOfMemoryFault() {}

  static Result run(Path work, int lists) throws Exception {
    Path state = work.resolve("state");
    try (ChildJvm child =
        ChildJvm.apiServer(
            work, List.of("-Xmx" + HEAP, "-XX:TieredStopAtLevel=1", "-Xshare:auto"))) {
      RawHttps http = RawHttps.fromKubeconfig(state.resolve("kubeconfig"));
      for (int i = 0; i < OBJECTS; i++) {
        RawHttps.Answer a =
            http.send(
                "POST",
                CM,
                "application/json",
                ("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"m"
                        + i
                        + "\"},\"data\":{\"b\":\""
                        + BLOB
                        + "\"}}")
                    .getBytes(StandardCharsets.UTF_8));
        if (a.code() != 201) {
          throw new IllegalStateException("setting up: write " + i + " answered " + a.code());
        }
      }
      ExecutorService pool = Executors.newFixedThreadPool(lists);
      List<Future<RawHttps.Counted>> jsonLists = new ArrayList<>();
      for (int i = 0; i < lists; i++) {
        jsonLists.add(pool.submit(() -> http.getCounted(CM)));
      }
      Map<Integer, Integer> jsonCodes = new TreeMap<>();
      int whole = 0;
      for (Future<RawHttps.Counted> f : jsonLists) {
        RawHttps.Counted a = f.get();
        jsonCodes.merge(a.code(), 1, Integer::sum);
        if (a.whole() && a.received() > OBJECTS * (long) BLOB.length()) {
          whole++;
        } else {
          System.out.println("  a full list: " + a);
        }
      }
      List<Future<RawHttps.Answer>> tables = new ArrayList<>();
      for (int i = 0; i < lists; i++) {
        tables.add(
            pool.submit(() -> slim(http.get(CM + "?includeObject=Object", TABLE_WITH_OBJECTS))));
      }
      Map<Integer, Integer> codes = new TreeMap<>();
      int oom = 0;
      int otherAnswers = 0;
      for (Future<RawHttps.Answer> f : tables) {
        RawHttps.Answer a = f.get();
        codes.merge(a.code(), 1, Integer::sum);
        if (a.code() == 500
            && a.reason().equals("InternalError")
            && a.body().contains("OutOfMemoryError")) {
          oom++;
        } else if (a.code() != 200) {
          otherAnswers++;
          System.out.println("  e.g. " + a.code() + " " + a.body());
        }
      }
      pool.shutdown();
      boolean serves =
          http.send("GET", "/version", null, new byte[0]).code() == 200
              && http.send("GET", CM + "/m1", null, new byte[0]).code() == 200
              && http.send(
                          "POST",
                          CM,
                          "application/json",
                          "{\"metadata\":{\"name\":\"after\"}}".getBytes(StandardCharsets.UTF_8))
                      .code()
                  == 201;
      return new Result(lists, jsonCodes, whole, codes, oom, otherAnswers, child.alive(), serves);
    }
  }

  /** A 200 table is 40 MB; keep only what is looked at. */
  private static RawHttps.Answer slim(RawHttps.Answer a) {
    return a.code() == 200 ? new RawHttps.Answer(200, "", a.retryAfter()) : a;
  }
}
