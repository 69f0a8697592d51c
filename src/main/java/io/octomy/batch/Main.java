package io.octomy.batch;

import io.octomy.batch.cli.AgentCommand;
import io.octomy.batch.cli.AsyncCompletionPool;
import io.octomy.batch.cli.ControllerCommand;
import io.octomy.batch.cli.StandaloneCommand;
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
    return new CommandLine(new Main());
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
