package io.octomy.batch.evidence;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * (g) Out of memory in the embedded API server, for real: the server runs in a child JVM with a
 * small heap, holds objects of 1 MB, and is asked for many full lists at once, more than its heap
 * can build. Every request must be answered (200, or 500 {@code InternalError} for one that ran out
 * of memory), and afterwards the same process must still serve reads and writes: an error in a
 * worker is answered and the worker lives on.
 */
final class OutOfMemoryFault {

  record Result(
      int lists,
      Map<Integer, Integer> listCodes,
      int outOfMemoryAnswers,
      int otherAnswers,
      boolean alive,
      boolean servesAfterwards) {

    boolean passed() {
      return outOfMemoryAnswers > 0 && otherAnswers == 0 && alive && servesAfterwards;
    }

    @Override
    public String toString() {
      return String.format(
          "out of memory -> embedded API server (child JVM, heap %s): concurrent full lists %d,"
              + " answers by status %s, of which 500 for an OutOfMemoryError %d, other answers or none"
              + " %d; process alive %s; reads and writes served afterwards %s",
          HEAP, lists, listCodes, outOfMemoryAnswers, otherAnswers, alive, servesAfterwards);
    }
  }

  private static final String HEAP = "192m";
  private static final String CM = "/api/v1/namespaces/default/configmaps";

  private OutOfMemoryFault() {}

  static Result run(Path work, int lists) throws Exception {
    Path state = work.resolve("state");
    try (ChildJvm child =
        ChildJvm.start(
            work.resolve("server.log"),
            HEAP,
            "io.octomy.batch.standalone.ServerProcessMain",
            state.toString(),
            "0")) {
      child.awaitLine("READY ", Duration.ofSeconds(60));
      RawHttps http = RawHttps.fromKubeconfig(state.resolve("kubeconfig"));
      String blob = "m".repeat(1_000_000);
      for (int i = 0; i < 40; i++) {
        RawHttps.Answer a =
            http.send(
                "POST",
                CM,
                "application/json",
                ("{\"metadata\":{\"name\":\"m" + i + "\"},\"data\":{\"b\":\"" + blob + "\"}}")
                    .getBytes(StandardCharsets.UTF_8));
        if (a.code() != 201) {
          throw new IllegalStateException("setting up: write " + i + " answered " + a.code());
        }
      }
      ExecutorService pool = Executors.newFixedThreadPool(lists);
      List<Future<RawHttps.Answer>> answers = new ArrayList<>();
      for (int i = 0; i < lists; i++) {
        answers.add(pool.submit(() -> slim(http.send("GET", CM, null, new byte[0]))));
      }
      Map<Integer, Integer> codes = new TreeMap<>();
      int oom = 0;
      int otherAnswers = 0;
      for (Future<RawHttps.Answer> f : answers) {
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
      return new Result(lists, codes, oom, otherAnswers, child.alive(), serves);
    }
  }

  /** A 200 list is 40 MB; keep only what is looked at. */
  private static RawHttps.Answer slim(RawHttps.Answer a) {
    return a.code() == 200 ? new RawHttps.Answer(200, "", a.retryAfter()) : a;
  }
}
