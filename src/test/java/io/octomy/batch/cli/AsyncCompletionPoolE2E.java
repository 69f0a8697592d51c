package io.octomy.batch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.Main;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Child JVMs told they have two processors (as the build machine has): where an asynchronous stage
 * without an executor runs, with and without the command line's own {@code main} before it.
 */
class AsyncCompletionPoolE2E {

  private static final String REPORT = "async stage ran on ";

  @Test
  void withoutTheSettingEveryAsyncStageStartsAThreadOfItsOwn() throws Exception {
    assertThat(probe(List.of(), false)).isEqualTo("a thread of its own, parallelism 1");
  }

  @Test
  void theCommandLineSharesTheCommonPoolAmongAsyncStages() throws Exception {
    assertThat(probe(List.of(), true)).isEqualTo("the common pool, parallelism 2");
  }

  @Test
  void aParallelismTheUserGaveIsKept() throws Exception {
    assertThat(probe(List.of("-D" + AsyncCompletionPool.PARALLELISM + "=1"), true))
        .isEqualTo("a thread of its own, parallelism 1");
  }

  /** Runs {@link Probe} in a two-processor child JVM and returns what it reported. */
  private static String probe(List<String> jvm, boolean throughMain) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:ActiveProcessorCount=2");
    command.addAll(jvm);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
    if (throughMain) {
      command.add("main");
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = read(p);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the probe ended; its output: %s", out).isTrue();
    return out.lines()
        .filter(l -> l.startsWith(REPORT))
        .map(l -> l.substring(REPORT.length()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no report in the probe's output: " + out));
  }

  private static String read(Process p) throws IOException {
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /**
   * Reports, as the JVM exits, where an asynchronous stage without an executor ran; with {@code
   * main} it first runs the command line ({@code --version}), which exits.
   */
  public static final class Probe {

    public static void main(String[] args) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    boolean pooled =
                        CompletableFuture.supplyAsync(
                                () -> Thread.currentThread() instanceof ForkJoinWorkerThread)
                            .join();
                    System.out.println(
                        REPORT
                            + (pooled ? "the common pool" : "a thread of its own")
                            + ", parallelism "
                            + ForkJoinPool.getCommonPoolParallelism());
                  }));
      if (args.length > 0 && args[0].equals("main")) {
        Main.main(new String[] {"--version"});
      }
    }
  }
}
