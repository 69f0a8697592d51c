package io.octomy.batch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The kubectl binaries a session runs with. The kubectl on the PATH may be the Google Cloud SDK's
 * dispatcher, which picks the versioned binary beside it ({@code kubectl.1.NN}) by the server's
 * version, so that two servers of different versions would be driven by two different kubectls. The
 * session therefore names versioned binaries itself: the oldest and the newest beside the PATH
 * kubectl, or the PATH kubectl alone when there are none.
 */
final class KubectlVersions {

  /** One kubectl binary and its minor version, {@code 1.33}. */
  record Binary(Path path, String minor) {
    @Override
    public String toString() {
      return minor;
    }
  }

  private static final Pattern VERSIONED = Pattern.compile("kubectl\\.(1\\.(\\d+))");

  private KubectlVersions() {}

  static List<Binary> oldestAndNewest() {
    Path onPath = onPath();
    List<Binary> versioned = new ArrayList<>();
    try (Stream<Path> siblings = Files.list(onPath.getParent())) {
      for (Path p : siblings.toList()) {
        Matcher m = VERSIONED.matcher(p.getFileName().toString());
        if (m.matches() && Files.isExecutable(p)) {
          versioned.add(new Binary(p, m.group(1)));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + onPath.getParent(), e);
    }
    if (versioned.isEmpty()) {
      return List.of(new Binary(onPath, minorOf(onPath)));
    }
    versioned.sort(Comparator.comparingInt(b -> Integer.parseInt(b.minor().substring(2))));
    Binary oldest = versioned.get(0);
    Binary newest = versioned.get(versioned.size() - 1);
    return oldest.equals(newest) ? List.of(newest) : List.of(newest, oldest);
  }

  /** The kubectl the PATH names, its links resolved. */
  private static Path onPath() {
    for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
      Path p = Path.of(dir, "kubectl");
      if (Files.isExecutable(p)) {
        try {
          return p.toRealPath();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    throw new IllegalStateException("no kubectl on the PATH: the conformance session needs one");
  }

  private static String minorOf(Path kubectl) {
    try {
      Process p =
          new ProcessBuilder(kubectl.toString(), "version", "--client", "-o", "json")
              .redirectErrorStream(false)
              .start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(kubectl + " version --client failed");
      }
      JsonNode v = new ObjectMapper().readTree(new String(out, StandardCharsets.UTF_8));
      String minor = v.path("clientVersion").path("minor").asText().replaceAll("\\D", "");
      return v.path("clientVersion").path("major").asText() + "." + minor;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + kubectl, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
