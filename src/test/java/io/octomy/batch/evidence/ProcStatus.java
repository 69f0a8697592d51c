package io.octomy.batch.evidence;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Lines of {@code /proc/PID/status} (Linux): resident memory of another process. */
final class ProcStatus {
  private ProcStatus() {}

  /** A {@code kB} field such as {@code VmRSS} (resident now) or {@code VmHWM} (peak resident). */
  static long kib(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim());
      }
    }
    throw new IllegalStateException(field + " is not in /proc/" + pid + "/status");
  }
}
