package io.octomy.batch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Health as GitOps tools compute it, through the small Go commands built with the control plane:
 * kstatus ({@code sigs.k8s.io/cli-utils/pkg/kstatus}, what Flux and kpt wait on) and an Argo CD
 * health script run under gopher-lua (the interpreter Argo CD embeds).
 */
final class HealthTools {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One object's verdict: status and message, by object name. */
  record Verdict(String status, String message) {}

  private HealthTools() {}

  static Map<String, Verdict> kstatus(Path objects) {
    return run(RealCluster.binary().toString(), "kstatus", objects.toString());
  }

  static Map<String, Verdict> argoLua(Path script, Path objects) {
    return run(
        RealCluster.binary().toString(), "lua-health", script.toString(), objects.toString());
  }

  private static Map<String, Verdict> run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
      }
      Map<String, Verdict> verdicts = new LinkedHashMap<>();
      for (String line : out.lines().filter(l -> l.startsWith("{")).toList()) {
        JsonNode v = JSON.readTree(line);
        verdicts.put(
            v.path("name").asText(),
            new Verdict(v.path("status").asText(), v.path("message").asText()));
      }
      return verdicts;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static List<String> names(Map<String, Verdict> v) {
    return List.copyOf(v.keySet());
  }
}
