package io.octomy.batch.cli;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs standalone mode in a second JVM with a bounded heap when the command that started it left
 * the heap to the JVM's own sizing.
 *
 * <p>Why: without {@code -Xmx} the JVM may grow its heap up to a quarter of the machine's memory
 * while jobs arrive (2.5 GB resident for 21,000 jobs on a 23 GB machine, whose live set is about
 * 220 MB), and a running JVM cannot bound its own heap. So {@code java -jar octomy-batch.jar
 * standalone} starts the server in a JVM of the same executable, options and arguments plus a
 * maximum heap sized from the state directory ({@link #heapMib}) and the collector that suits it
 * ({@link #COLLECTOR}), and waits for it: the output is the server's, and so is the exit code. A
 * heap the user sized ({@code -Xmx}, {@code -Xms}, {@code -XX:MaxHeapSize}, {@code -XX:MaxRAM...},
 * on the command line or in {@code JAVA_TOOL_OPTIONS}) is kept, and then nothing is started twice.
 *
 * <p>Failure handling:
 *
 * <ul>
 *   <li>Ctrl-C reaches both JVMs; a SIGTERM to this one is passed on to the server, and this one
 *       waits up to a minute for the server to stop before it kills it.
 *   <li>When this JVM is killed outright, the server finds its launcher gone and stops as on Ctrl-C
 *       ({@link #stopWithLauncher}): job processes keep running and the next start adopts them.
 *   <li>Before the heap is full of stored objects the server refuses new ones with 403 ({@code
 *       apiserver.HeapRoom}) and goes on serving those it holds.
 *   <li>When the server's heap runs out all the same, the server exits at once rather than serve
 *       with threads that failed; every write it acknowledged is already committed. This JVM says
 *       so and how to start with more, and exits with the server's code. The next start sizes the
 *       heap from the state that grew.
 * </ul>
 */
final class StandaloneLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(StandaloneLauncher.class);

  /** Set in the server JVM's environment: its launcher's process id. */
  static final String LAUNCHER_PID = "OCTOMY_BATCH_LAUNCHER_PID";

  /**
   * The heap of a state of up to 100,000 jobs: their live set is about 7 KB a job (a job's text is
   * kept packed, {@code apiserver.CompactText}; the rest is the controller's typed copy and its
   * admission loop's), some 720 MB, which must stay under the mark at which new objects are refused
   * (80 % of the old generation, three quarters of the heap: {@link #YOUNG_SHARE}) with room for a
   * start's relist. Measured: both JVMs under 2 GiB resident with 100,000 jobs
   * (docs/benchmarks.md).
   */
  static final long BASE_HEAP_MIB = 1400;

  /**
   * Heap per MiB of state database, for a state larger than the base holds. The live set is about
   * 1.6 times the database (30,000 jobs: a database of 134 MiB, 217 MB live), and a start reads
   * every row and relists every job besides: three times the database keeps it under the mark.
   */
  static final long HEAP_PER_STATE_MIB = 3;

  /**
   * The young generation's share, beside {@link #COLLECTOR}: a quarter of the heap rather than the
   * throughput collector's third, so that more of a heap sized for stored objects holds them (the
   * old generation is where they live and what {@code apiserver.HeapRoom} measures).
   */
  static final String YOUNG_SHARE = "-XX:NewRatio=3";

  /** The HotSpot exit code of {@code -XX:+ExitOnOutOfMemoryError}. */
  static final int OUT_OF_HEAP_EXIT = 3;

  /**
   * JVM options that size the heap: the maximum, directly or as a share of memory, and the initial
   * and minimum sizes ({@code -Xms}), which a maximum of ours could contradict.
   */
  private static final List<String> HEAP_OPTIONS =
      List.of(
          "MaxHeapSize",
          "MaxRAM",
          "MaxRAMPercentage",
          "MaxRAMFraction",
          "InitialHeapSize",
          "MinHeapSize");

  /**
   * The collector the server gets in its bounded heap, unless the user chose one: the throughput
   * collector. Why: as jobs arrive the live set fills much of the heap sized for them, and there,
   * on two processors, G1 kept marking concurrently (27 cycles in the 96 s of one run creating
   * 21,000 jobs) and its write barriers slowed every request: with this collector the server took
   * 1.1–1.5 × the creates a second of G1 (docs/benchmarks.md, "The server's collector"). What it
   * costs: each full collection stops the server, 0.27–0.29 s at 21,000 jobs, four or five times in
   * such a run (G1 paused under 0.05 s but once, a full collection of 0.2 s), and G1's return of
   * idle heap ({@code IdleHeapRelease}) does not apply; the bounded heap keeps the process under 1
   * GiB either way.
   */
  static final String COLLECTOR = "-XX:+UseParallelGC";

  /** JVM options that choose a collector; with any of them set, the user's collector is kept. */
  private static final List<String> COLLECTOR_OPTIONS =
      List.of(
          "UseSerialGC", "UseParallelGC", "UseG1GC", "UseZGC", "UseShenandoahGC", "UseEpsilonGC");

  private StandaloneLauncher() {}

  /** Whether this JVM should start the server in a bounded one instead of serving itself. */
  static boolean shouldLaunch() {
    if (System.getenv(LAUNCHER_PID) != null) {
      return false; // this is the server a launcher started
    }
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    return vm != null && !heapChosen(name -> originOf(vm, name));
  }

  /** Whether any heap option came from somewhere other than the JVM's own sizing. */
  static boolean heapChosen(Function<String, VMOption.Origin> origin) {
    return anyChosen(HEAP_OPTIONS, origin);
  }

  /**
   * Whether any collector option came from somewhere other than the JVM's own choice: a second
   * collector of ours would keep the server's JVM from starting.
   */
  static boolean collectorChosen(Function<String, VMOption.Origin> origin) {
    return anyChosen(COLLECTOR_OPTIONS, origin);
  }

  /**
   * Whether any of {@code options} was given (not left to the JVM); one this JVM does not know
   * ({@code null} origin) was not.
   */
  private static boolean anyChosen(List<String> options, Function<String, VMOption.Origin> origin) {
    for (String option : options) {
      VMOption.Origin o = origin.apply(option);
      if (o != null && o != VMOption.Origin.DEFAULT && o != VMOption.Origin.ERGONOMIC) {
        return true;
      }
    }
    return false;
  }

  /** The origin of a JVM option of this JVM; null when this JVM does not have it. */
  private static VMOption.Origin originOf(HotSpotDiagnosticMXBean vm, String option) {
    try {
      return vm.getVMOption(option).getOrigin();
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  /**
   * The server's maximum heap for a state directory whose database holds {@code stateBytes}: the
   * base, or more for a larger state, never more than {@code jvmDefaultMib}, what the JVM would
   * have taken on its own.
   */
  static long heapMib(long stateBytes, long jvmDefaultMib) {
    long forState = HEAP_PER_STATE_MIB * (stateBytes >> 20);
    return Math.min(Math.max(BASE_HEAP_MIB, forState), Math.max(BASE_HEAP_MIB, jvmDefaultMib));
  }

  /** The bytes of the state database and its write-ahead log (0 for a new state directory). */
  static long stateBytes(Path stateDir) {
    long bytes = 0;
    for (String file : List.of("state.db", "state.db-wal")) {
      try {
        bytes += Files.size(stateDir.resolve(file));
      } catch (IOException absent) {
        // a new state directory, or one without a log
      }
    }
    return bytes;
  }

  /**
   * Starts the server JVM with {@code args} (this process's own arguments) and waits for it.
   *
   * @param mainClass the class whose {@code main} this process runs
   * @return the server's exit code
   */
  static int launch(Path stateDir, String mainClass, List<String> args)
      throws IOException, InterruptedException {
    long heap = heapMib(stateBytes(stateDir), Runtime.getRuntime().maxMemory() >> 20);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add("-Xmx" + heap + "m");
    command.add("-XX:+ExitOnOutOfMemoryError");
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    if (vm != null && !collectorChosen(name -> originOf(vm, name))) {
      command.add(COLLECTOR);
      command.add(YOUNG_SHARE);
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put(LAUNCHER_PID, Long.toString(ProcessHandle.current().pid()));
    Process server = builder.start();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> stop(server), "standalone-launcher-shutdown"));
    // From here on this JVM only waits: what reading the command line touched of its heap is
    // given back, so that the two processes together stay within the server's budget.
    System.gc();
    int code = server.waitFor();
    if (code == OUT_OF_HEAP_EXIT) {
      System.err.printf(
          "octomy-batch standalone: the server used all of its %d MiB heap and stopped; every"
              + " write it acknowledged is kept in %s. Start it again: the heap is sized from the"
              + " state, now %d MiB. Or choose one: java -Xmx4g -jar octomy-batch.jar standalone%n",
          heap, stateDir, heapMib(stateBytes(stateDir), Runtime.getRuntime().maxMemory() >> 20));
    }
    return code;
  }

  private static void stop(Process server) {
    if (!server.isAlive()) {
      return;
    }
    server.destroy();
    try {
      if (!server.waitFor(1, TimeUnit.MINUTES)) {
        LOG.warn("the standalone server did not stop within a minute; killing it");
        server.destroyForcibly();
      }
    } catch (InterruptedException e) {
      server.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * In the server JVM: stops this process (as on Ctrl-C) when the launcher that started it is gone,
   * for instance killed outright, so that no server outlives the command its user stopped.
   *
   * <p>The JDK learns that a process which is not its child ended by reading {@code
   * /proc/PID/stat}; out of file descriptors (a flood of connections) that read fails and a live
   * launcher looks gone. So where {@code /proc} exists, the end is confirmed by whether {@code
   * /proc/PID} is still there, which takes no descriptor, and looked at again a second later if not
   * confirmed.
   */
  static void stopWithLauncher() {
    String pid = System.getenv(LAUNCHER_PID);
    if (pid == null) {
      return;
    }
    Path proc = Path.of("/proc", pid);
    if (!Files.isDirectory(Path.of("/proc", "self"))) {
      ProcessHandle.of(Long.parseLong(pid))
          .map(ProcessHandle::onExit)
          .orElse(CompletableFuture.completedFuture(null))
          .thenRun(() -> launcherGone(pid));
      return;
    }
    Thread watch =
        new Thread(
            () -> {
              while (launcherRuns(proc)) {
                try {
                  Thread.sleep(1000);
                } catch (InterruptedException e) {
                  return;
                }
              }
              launcherGone(pid);
            },
            "launcher-watch");
    watch.setDaemon(true);
    watch.start();
  }

  /**
   * Whether {@code /proc/PID} is there: a stat, which needs no file descriptor. Only its absence
   * means the launcher ended; a stat that fails otherwise proves nothing and is asked again.
   */
  static boolean launcherRuns(Path proc) {
    try {
      Files.readAttributes(proc, BasicFileAttributes.class);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  private static void launcherGone(String pid) {
    LOG.warn("the launcher (process {}) is gone; stopping", pid);
    System.exit(0);
  }
}
