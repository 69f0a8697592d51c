package io.octomy.batch.evidence;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Lines of {@code /proc/PID/status} and {@code /proc/PID/stat} (Linux): resident memory and
 * processor time of another process, summed with the Java processes it started: {@code java -jar
 * octomy-batch.jar standalone} with the JVM's own heap sizing runs the server in a second JVM (the
 * launcher's), and both count. Job processes the agent starts do not.
 */
final class ProcStatus {
  private ProcStatus() {}

  /** A {@code kB} field such as {@code VmRSS} (resident now) or {@code VmHWM} (peak resident). */
  static long kib(long pid, String field) throws IOException {
    long sum = 0;
    for (long p : javaTree(pid)) {
      sum += ownKib(p, field);
    }
    return sum;
  }

  private static long ownKib(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim());
      }
    }
    throw new IllegalStateException(field + " is not in /proc/" + pid + "/status");
  }

  /** Processor time the process has used so far, user and system, in seconds. */
  static double cpuSeconds(long pid) throws IOException {
    double sum = 0;
    for (long p : javaTree(pid)) {
      sum += ownCpuSeconds(p);
    }
    return sum;
  }

  /** The process and the Java processes among its descendants. */
  private static List<Long> javaTree(long pid) {
    List<Long> tree = new ArrayList<>(List.of(pid));
    ProcessHandle.of(pid).stream()
        .flatMap(ProcessHandle::descendants)
        .filter(d -> d.info().command().map(c -> c.endsWith("/java")).orElse(false))
        .forEach(d -> tree.add(d.pid()));
    return tree;
  }

  private static double ownCpuSeconds(long pid) throws IOException {
    return statCpuSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
  }

  /**
   * Processor time the JVMs' just-in-time compiler threads ({@code C1 CompilerThread}, {@code C2
   * CompilerThread}) have used so far, in seconds: the part of {@link #cpuSeconds} that compiles
   * code rather than runs it. A compiler thread the JVM ends takes its time with it.
   */
  static double compilerCpuSeconds(long pid) throws IOException {
    return threadCpuSeconds(
        pid, name -> name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre"));
  }

  /**
   * Processor time the controller's admission loop has used so far, in seconds: its one thread
   * ({@code admission-loop}), where every pass runs.
   */
  static double admissionLoopCpuSeconds(long pid) throws IOException {
    return threadCpuSeconds(pid, "admission-loop"::equals);
  }

  /** Processor time of the threads of the JVMs under {@code pid} whose name matches, in seconds. */
  private static double threadCpuSeconds(long pid, Predicate<String> name) throws IOException {
    double sum = 0;
    for (long p : javaTree(pid)) {
      List<Path> threads;
      try (var tasks = Files.list(Path.of("/proc", Long.toString(p), "task"))) {
        threads = tasks.toList();
      }
      for (Path thread : threads) {
        try {
          // comm ends in a newline and is cut to 15 characters
          if (name.test(Files.readString(thread.resolve("comm")).strip())) {
            sum += statCpuSeconds(Files.readString(thread.resolve("stat")));
          }
        } catch (NoSuchFileException ended) {
          // a thread that ended between the listing and the read
        }
      }
    }
    return sum;
  }

  private static double statCpuSeconds(String stat) {
    // after the command name in parentheses: state (field 3) ... utime (14), stime (15)
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) CLOCK_TICKS;
  }

  /**
   * Linux reports processor time in ticks of 1/100 s (USER_HZ) on every architecture it runs on.
   */
  private static final int CLOCK_TICKS = 100;
}
