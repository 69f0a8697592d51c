package io.octomy.batch.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The processor and memory bounds a cgroup v2 hierarchy puts on this agent (and so on the jobs it
 * runs itself): {@code cpu.max} as {@code quota/period x 1000} milli-cores, {@code memory.max} in
 * bytes; "max" or a missing file means unbounded.
 *
 * <p>The effective bound of a cgroup is the tightest along its path to the root, so every ancestor
 * is read, from the agent's own cgroup up to the root. Inside a container with its own cgroup
 * namespace the own path is "/" and only the root files count; on a host (or a container sharing
 * the host's namespace) the own path comes from {@code /proc/self/cgroup}.
 *
 * @param cpuMilli the processor bound in thousandths of a logical processor, if any
 * @param memoryBytes the memory bound in bytes, if any
 */
public record CgroupBounds(OptionalLong cpuMilli, OptionalLong memoryBytes) {

  /** The real cgroup v2 mount point. */
  public static final Path DEFAULT_ROOT = Path.of("/sys/fs/cgroup");

  /** No bounds at all. */
  public static final CgroupBounds NONE =
      new CgroupBounds(OptionalLong.empty(), OptionalLong.empty());

  /**
   * Reads the bounds of this process from the real hierarchy; {@link #NONE} when not on cgroup v2.
   */
  public static CgroupBounds ofThisProcess() {
    return read(DEFAULT_ROOT, ownCgroupPath(Path.of("/proc/self/cgroup")));
  }

  /**
   * The cgroup v2 path of a process from its {@code /proc/PID/cgroup} file (the {@code 0::} line);
   * "/" when there is no such line or the file cannot be read.
   */
  public static String ownCgroupPath(Path procCgroupFile) {
    try {
      for (String line : Files.readAllLines(procCgroupFile)) {
        if (line.startsWith("0::")) {
          return line.substring(3).trim();
        }
      }
    } catch (IOException | UncheckedIOException e) {
      // No /proc (not Linux) or not readable: treat as the root, which then has no bounds files.
    }
    return "/";
  }

  /**
   * Reads the bounds along {@code ownPath} (e.g. "/system.slice/agent.service") under {@code root},
   * taking the tightest of each.
   */
  public static CgroupBounds read(Path root, String ownPath) {
    OptionalLong cpu = OptionalLong.empty();
    OptionalLong memory = OptionalLong.empty();
    for (Path dir : pathToRoot(root, ownPath)) {
      cpu = min(cpu, cpuMilliOf(dir.resolve("cpu.max")));
      memory = min(memory, memoryOf(dir.resolve("memory.max")));
    }
    return new CgroupBounds(cpu, memory);
  }

  /** {@code value} bounded by the processor limit, if any. */
  public long boundCpuMilli(long value) {
    return cpuMilli.isPresent() ? Math.min(value, cpuMilli.getAsLong()) : value;
  }

  /** {@code value} bounded by the memory limit, if any. */
  public long boundMemoryBytes(long value) {
    return memoryBytes.isPresent() ? Math.min(value, memoryBytes.getAsLong()) : value;
  }

  private static List<Path> pathToRoot(Path root, String ownPath) {
    ArrayList<Path> dirs = new ArrayList<>();
    Path dir = root;
    dirs.add(dir);
    for (String part : ownPath.split("/")) {
      // ".." would escape the root; a real /proc/self/cgroup never holds it, a corrupt one might.
      if (!part.isEmpty() && !part.equals(".") && !part.equals("..")) {
        dir = dir.resolve(part);
        dirs.add(dir);
      }
    }
    return dirs;
  }

  /** {@code cpu.max} holds "QUOTA PERIOD" or "max PERIOD" (period defaults to 100000 us). */
  private static OptionalLong cpuMilliOf(Path file) {
    String text = readTrimmed(file);
    if (text == null) {
      return OptionalLong.empty();
    }
    String[] parts = text.split("\\s+");
    if (parts[0].equals("max")) {
      return OptionalLong.empty();
    }
    try {
      long quota = Long.parseLong(parts[0]);
      long period = parts.length > 1 ? Long.parseLong(parts[1]) : 100_000L;
      if (quota < 0 || period <= 0) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(Math.multiplyExact(quota, 1000L) / period);
    } catch (NumberFormatException | ArithmeticException e) {
      return OptionalLong.empty();
    }
  }

  private static OptionalLong memoryOf(Path file) {
    String text = readTrimmed(file);
    if (text == null || text.equals("max")) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(text));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private static String readTrimmed(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.readString(file).trim() : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static OptionalLong min(OptionalLong a, OptionalLong b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return OptionalLong.of(Math.min(a.getAsLong(), b.getAsLong()));
  }
}
