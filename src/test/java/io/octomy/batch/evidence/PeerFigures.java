package io.octomy.batch.evidence;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code name value} lines of the Slurm peer script and sets our figures of the same name
 * beside them, as ratios.
 */
final class PeerFigures {

  /** Figures where more is better (a rate); the rest are times, where less is better. */
  private static final List<String> RATES =
      List.of("loop_decisions_per_s", "loop_creates_per_s", "loop_prepared_decisions_per_s");

  /** Figures both sides print under the same name. */
  private static final List<String> SHARED =
      List.of(
          "loop_create_s",
          "loop_decided_s",
          "loop_decisions_per_s",
          "run_loop_drain_s",
          "run_loop_emptyq_drain_s");

  /**
   * Our figures set beside a peer figure of another name: keeping pace from prepared requests is
   * set beside Slurm's one way of submitting distinct jobs, a loop of {@code sbatch}.
   */
  private static final Map<String, String> BESIDE =
      Map.of("loop_prepared_decisions_per_s", "loop_decisions_per_s");

  private PeerFigures() {}

  static List<String> compare(Path peerFile, Map<String, String> ours) throws IOException {
    Map<String, String> peer = new HashMap<>();
    for (String line : Files.readAllLines(peerFile)) {
      String[] kv = line.trim().split("\\s+", 2);
      if (kv.length == 2 && !kv[0].startsWith("#")) {
        peer.put(kv[0], kv[1]);
      }
    }
    List<String> out = new ArrayList<>();
    out.add(
        "figure | ours | slurm ("
            + peer.getOrDefault("scheduler_parameters", "?")
            + ") | ours/slurm");
    List<String> names = new ArrayList<>(SHARED);
    names.addAll(BESIDE.keySet());
    for (String name : names) {
      String o = ours.get(name);
      String peerName = BESIDE.getOrDefault(name, name);
      String p = peer.get(peerName);
      String label = peerName.equals(name) ? name : name + " (slurm: " + peerName + ")";
      if (o == null || p == null) {
        out.add(label + " | " + o + " | " + p + " | -");
        continue;
      }
      double ratio = Double.parseDouble(o) / Double.parseDouble(p);
      out.add(
          String.format(
              "%s | %s | %s | %.2f%s",
              label,
              o,
              p,
              ratio,
              RATES.contains(name) ? " (more is better)" : " (less is better)"));
    }
    return out;
  }
}
