package io.octomy.batch.evidence;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * (h) The heap fills with stored objects, for real: the server runs in a child JVM with a small
 * heap and the launcher's collector, and is sent new objects of 100 KB one after another, more than
 * its heap can hold. It must refuse new objects with 403 saying its heap is full (no other answer,
 * no dying), keep every object it acknowledged readable and writable, and take new objects again
 * once deletes have made room.
 */
final class HeapFullFault {

  record Result(
      Map<Integer, Integer> createCodes,
      int acknowledged,
      String refusal,
      int readBack,
      boolean updated,
      int deleted,
      boolean createdAfterDeletes,
      boolean alive) {

    boolean passed() {
      return createCodes.keySet().stream().allMatch(c -> c == 201 || c == 403)
          && createCodes.getOrDefault(403, 0) > 0
          && refusal.contains("heap is full")
          && readBack == acknowledged
          && updated
          && createdAfterDeletes
          && alive;
    }

    @Override
    public String toString() {
      return String.format(
          "heap full -> embedded API server (child JVM, heap %s, %s): creates of 100 KB answered"
              + " by status %s; acknowledged %d, read back %d; first refusal: %s; an acknowledged"
              + " object updated %s; %d deleted, a create taken again afterwards %s; process alive"
              + " %s",
          HEAP,
          COLLECTOR,
          createCodes,
          acknowledged,
          readBack,
          refusal,
          updated,
          deleted,
          createdAfterDeletes,
          alive);
    }
  }

  private static final String HEAP = "256m";
  private static final String COLLECTOR = "-XX:+UseParallelGC";
  private static final String CM = "/api/v1/namespaces/default/configmaps";

  /** Far more than the heap holds: the run fails if none of them is refused. */
  private static final int MAX_CREATES = 4_000;

  private HeapFullFault() {}

  static Result run(Path work) throws Exception {
    Path state = work.resolve("state");
    try (ChildJvm child =
        ChildJvm.apiServer(
            work, List.of("-Xmx" + HEAP, COLLECTOR, "-XX:TieredStopAtLevel=1", "-Xshare:auto"))) {
      RawHttps http = RawHttps.fromKubeconfig(state.resolve("kubeconfig"));
      String blob = randomLetters(100_000);
      Map<Integer, Integer> codes = new TreeMap<>();
      List<String> acknowledged = new ArrayList<>();
      String refusal = "";
      for (int i = 0; i < MAX_CREATES && refusal.isEmpty(); i++) {
        RawHttps.Answer a = http.send("POST", CM, "application/json", configMap("h" + i, blob));
        codes.merge(a.code(), 1, Integer::sum);
        if (a.code() == 201) {
          acknowledged.add("h" + i);
        } else if (a.code() == 403) {
          refusal = a.json().path("message").asText();
        } else {
          System.out.println("  e.g. " + a.code() + " " + abbreviated(a.body()));
          break;
        }
      }
      int readBack = 0;
      for (String name : acknowledged) {
        if (http.send("GET", CM + "/" + name, null, new byte[0]).code() == 200) {
          readBack++;
        }
      }
      boolean updated =
          !acknowledged.isEmpty()
              && http.send(
                          "PATCH",
                          CM + "/" + acknowledged.get(0),
                          "application/merge-patch+json",
                          "{\"metadata\":{\"labels\":{\"kept\":\"yes\"}}}"
                              .getBytes(StandardCharsets.UTF_8))
                      .code()
                  == 200;
      int deleted = 0;
      for (String name : acknowledged.subList(0, acknowledged.size() * 2 / 3)) {
        if (http.send("DELETE", CM + "/" + name, null, new byte[0]).code() == 200) {
          deleted++;
        }
      }
      // the room made is seen at the next reading of the heap, at most HeapRoom's refresh later
      boolean createdAfter = false;
      long until = System.nanoTime() + Duration.ofSeconds(40).toNanos();
      while (!createdAfter && System.nanoTime() < until) {
        createdAfter =
            http.send("POST", CM, "application/json", configMap("after", blob)).code() == 201;
        if (!createdAfter) {
          Thread.sleep(1000);
        }
      }
      return new Result(
          codes,
          acknowledged.size(),
          abbreviated(refusal),
          readBack,
          updated,
          deleted,
          createdAfter,
          child.alive());
    }
  }

  /**
   * Text the store cannot pack small: it keeps each object deflated, and 100 KB of one letter would
   * be a few hundred bytes, so the heap would never fill.
   */
  private static String randomLetters(int length) {
    Random letters = new Random(7);
    char[] text = new char[length];
    for (int i = 0; i < length; i++) {
      text[i] = (char) ('a' + letters.nextInt(26));
    }
    return new String(text);
  }

  private static byte[] configMap(String name, String blob) {
    return ("{\"metadata\":{\"name\":\"" + name + "\"},\"data\":{\"b\":\"" + blob + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static String abbreviated(String s) {
    return s.length() > 400 ? s.substring(0, 400) + "…" : s;
  }
}
