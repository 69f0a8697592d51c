package io.octomy.batch;

import io.octomy.batch.cli.AgentCommand;
import io.octomy.batch.cli.AsyncCompletionPool;
import io.octomy.batch.cli.ControllerCommand;
import io.octomy.batch.cli.StandaloneCommand;
import io.octomy.batch.vocabulary.CannotStart;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The command line: {@code standalone}, {@code controller} and {@code agent}. */
@Command(
    name = "octomy-batch",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description =
        "Kubernetes-native batch admission: decides whether each BatchJob starts now, later or never, and on which node.",
    subcommands = {StandaloneCommand.class, ControllerCommand.class, AgentCommand.class})
public final class Main implements Runnable {

  public static void main(String[] args) {
    AsyncCompletionPool.ensure();
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, also used by tests. */
  public static CommandLine commandLine() {
    return new CommandLine(new Main()).setExecutionExceptionHandler(Main::refusalOrTrace);
  }

  /**
   * A {@link CannotStart} anywhere in the chain is printed as its sentence alone (exit 1); anything
   * else is a fault of the program and is left to picocli, which prints its stack trace.
   */
  private static int refusalOrTrace(
      Exception failure, CommandLine command, CommandLine.ParseResult parsed) throws Exception {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CannotStart refusal) {
        command.getErr().println(command.getCommandName() + ": " + refusal.getMessage());
        command.getErr().flush();
        return 1;
      }
    }
    throw failure;
  }

  @Override
  public void run() {
    commandLine().usage(System.out);
  }

  /** The version from the jar's manifest, or "dev" when run from classes. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"octomy-batch " + (v == null ? "dev" : v)};
    }
  }
}
