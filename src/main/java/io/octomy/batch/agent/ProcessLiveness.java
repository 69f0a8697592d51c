package io.octomy.batch.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import oshi.SystemInfo;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/**
 * Whether a process has ended, whether a pid is still the process that was recorded, and waiting
 * for a process tree to end: what {@link ProcessExecutor} asks of the operating system when it
 * stops and re-adopts jobs.
 */
final class ProcessLiveness {

  private ProcessLiveness() {}

  /**
   * How far apart two readings of one process's start time may be and still mean the same process.
   * Linux derives start times from the boot time in {@code /proc/stat}, which two JVMs can read a
   * second apart; a pid being reused within that window is not a realistic risk.
   */
  static final Duration START_TIME_TOLERANCE = Duration.ofSeconds(2);

  private static final OperatingSystem OS = new SystemInfo().getOperatingSystem();

  /**
   * Whether the live process {@code h} is the one that was recorded as started at {@code recorded}.
   */
  static boolean sameStart(ProcessHandle h, Instant recorded) {
    Optional<Instant> now = h.info().startInstant();
    // Without a recorded start time a live pid proves nothing: it may be another process.
    return recorded != null
        && now.isPresent()
        && Duration.between(recorded, now.get()).abs().compareTo(START_TIME_TOLERANCE) <= 0;
  }

  /**
   * True once a process has ended. {@link ProcessHandle#isAlive()} stays true for a zombie, which
   * has exited but waits for its parent (or init) to reap it; some init processes reap only now and
   * then, so waiting for the reap would stall stops and re-adoption.
   */
  static boolean hasExited(ProcessHandle h) {
    if (!h.isAlive()) {
      return true;
    }
    OSProcess p = OS.getProcess(Math.toIntExact(h.pid()));
    return p == null || p.getState() == OSProcess.State.ZOMBIE;
  }

  /** {@code root} and every process below it now. */
  static List<ProcessHandle> tree(ProcessHandle root) {
    List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
    all.add(root);
    return all;
  }

  /**
   * Polls rather than joining {@link ProcessHandle#onExit()}: for processes that are not our
   * children the JDK polls from 300 ms upwards, which made every stop take seconds.
   */
  static boolean awaitAll(List<ProcessHandle> handles, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!handles.stream().allMatch(ProcessLiveness::hasExited)) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
