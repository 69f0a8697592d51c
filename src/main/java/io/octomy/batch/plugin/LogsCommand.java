package io.octomy.batch.plugin;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kubectl octomy logs JOB}: what a job run as a local process (executor Process) printed,
 * read from its output file by the visibility API: on the same machine in standalone mode, through
 * the agent of the job's node on a cluster. A Pod job's output is read with {@code kubectl logs},
 * and the server says so.
 */
@Command(
    name = "logs",
    mixinStandardHelpOptions = true,
    description =
        "The output (stdout and stderr) of a BatchJob run as a local process, from its output file.")
final class LogsCommand implements Callable<Integer> {

  @Mixin ConnectionOptions options;

  @Parameters(index = "0", paramLabel = "JOB", description = "The BatchJob's name.")
  String job;

  @Option(
      names = "--tail",
      paramLabel = "N",
      description = "Only the last N lines; -1 for all, as kubectl logs (default: all).")
  Long tail;

  @Option(
      names = "--limit-bytes",
      paramLabel = "N",
      description =
          "At most the first N bytes of the output (of its last lines, with --tail), as kubectl logs "
              + "(default: all of it; of an output over 16 MiB, its last 16 MiB).")
  Long limitBytes;

  @Option(
      names = "--run",
      paramLabel = "N",
      description =
          "The output of run N of a retried job (runs are numbered from 1; default: the current"
              + " or last run).")
  Integer run;

  @Option(
      names = "--replica",
      paramLabel = "I",
      description =
          "The output of replica I of a gang (spec.replicas; replicas are numbered from 0, as"
              + " OCTOMY_REPLICA_INDEX; default: 0).")
  Integer replica;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    if (options.output != null) {
      throw new PluginException("error: logs prints the job's output as it is: leave -o out.");
    }
    String segment = PathSegments.job(job);
    try (PluginConnection c = options.connect()) {
      StringBuilder path =
          new StringBuilder(
              "/namespaces/"
                  + PathSegments.namespace(options.namespace(c))
                  + "/joblogs/"
                  + segment);
      String sep = "?";
      if (tail != null && tail != -1) {
        path.append(sep).append("tailLines=").append(tail);
        sep = "&";
      }
      if (limitBytes != null) {
        path.append(sep).append("limitBytes=").append(limitBytes);
        sep = "&";
      }
      if (run != null) {
        path.append(sep).append("run=").append(run);
        sep = "&";
      }
      if (replica != null) {
        path.append(sep).append("replica=").append(replica);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.print(c.getText(path.toString()));
      out.flush();
      return 0;
    }
  }
}
