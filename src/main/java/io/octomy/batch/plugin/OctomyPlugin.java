package io.octomy.batch.plugin;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code kubectl octomy}: a kubectl plugin (the executable {@code kubectl-octomy} on the PATH) that
 * asks the read-only visibility API where a job is in the queue, why it waits, whether a manifest
 * would fit, and what a Process job printed. A thin client: every answer is the server's.
 */
@Command(
    name = "kubectl octomy",
    mixinStandardHelpOptions = true,
    description =
        "Where am I in the queue, when do I start, why not now, what if: octomy-batch's read-only"
            + " visibility API from kubectl, its pages (ui), and a kubeconfig for a controller or"
            + " agent outside the cluster (kubeconfig).",
    subcommands = {
      QueueCommand.class,
      WhyCommand.class,
      FitCommand.class,
      LogsCommand.class,
      UiCommand.class,
      KubeconfigCommand.class
    })
public final class OctomyPlugin implements Runnable {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line: a refusal prints its sentence and exits 1, as kubectl does. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new OctomyPlugin());
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          if (e instanceof PluginException) {
            line.getErr().println(e.getMessage());
            return 1;
          }
          // kubectl prints one line for what it cannot do, never a trace: so does its plugin
          line.getErr()
              .println(
                  "error: "
                      + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
                      + (e.getMessage() != null && e.getMessage().endsWith(".") ? "" : "."));
          return 1;
        });
    return cl;
  }

  @Override
  public void run() {
    commandLine().usage(System.out);
  }
}
