package io.octomy.batch.evidence;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link AtSizeChecks} on a state kept by {@code WritePathBenchmark --keep-state DIR}, on their
 * own: a start on it (until it serves), both JVMs' resident memory, a list in pages, and a kill -9
 * while creating. Each figure is printed as it is measured.
 *
 * <pre>
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) \
 *     io.octomy.batch.evidence.AtSizeRun --keep-state DIR [--page-limit 500] [--kill-after-s 3]
 * </pre>
 */
public final class AtSizeRun {

  private AtSizeRun() {}

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(
            argv, Map.of("keep-state", "", "page-limit", "500", "kill-after-s", "3", "jvm", ""));
    Path state = Path.of(a.string("keep-state"));
    List<String> jvm = StandaloneChild.jvmOptions(a.string("jvm"));
    Map<String, String> out =
        new LinkedHashMap<>() {
          @Override
          public String put(String key, String value) {
            System.out.println(key + " " + value);
            return super.put(key, value);
          }
        };
    long t0 = System.nanoTime();
    ChildJvm standalone =
        StandaloneChild.start(jvm, state, "at-size", QueueBenchmark.CPU + "=64000");
    try {
      var config = StandaloneChild.config(standalone);
      out.put("start_serving_s", String.format("%.2f", (System.nanoTime() - t0) / 1e9));
      Thread.sleep(5000);
      out.put("rss_mib", Long.toString(ProcStatus.kib(standalone.pid(), "VmRSS") / 1024));
      AtSizeChecks.pagedList(
          state.resolve("state").resolve("kubeconfig"), a.integer("page-limit"), out);
      out.put(
          "rss_after_list_mib", Long.toString(ProcStatus.kib(standalone.pid(), "VmRSS") / 1024));
      standalone =
          AtSizeChecks.killNineWhileCreating(
              standalone,
              config,
              () ->
                  StandaloneChild.start(jvm, state, "at-size-again", QueueBenchmark.CPU + "=64000"),
              a.integer("kill-after-s"),
              out);
      out.put(
          "rss_after_kill9_restart_mib",
          Long.toString(ProcStatus.kib(standalone.pid(), "VmRSS") / 1024));
    } finally {
      standalone.close();
    }
    System.exit(0);
  }
}
