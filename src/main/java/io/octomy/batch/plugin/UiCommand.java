package io.octomy.batch.plugin;

import java.awt.Desktop;
import java.awt.GraphicsEnvironment;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kubectl octomy ui}: the queue as a timeline, the nodes and their offers, a job, the teams'
 * shares and the job types' drift, as web pages served on 127.0.0.1 until Ctrl-C. The pages read
 * through this process, which adds the kubeconfig's credentials; they can change nothing.
 */
@Command(
    name = "ui",
    mixinStandardHelpOptions = true,
    description = {
      "Serves read-only web pages on 127.0.0.1: the queue as a timeline, nodes and their offers,"
          + " a job, teams' shares and job types' drift. Prints the URL; Ctrl-C stops it.",
      "The pages read through this process with your kubeconfig's credentials (GET only), so they"
          + " show what you may read; no credential reaches the browser."
    })
final class UiCommand implements Callable<Integer> {

  @Mixin ConnectionOptions options;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "The port on 127.0.0.1 (default: a free one).")
  int port;

  @Option(names = "--open", description = "Open the page in the desktop's browser as well.")
  boolean open;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (options.output != null) {
      throw new PluginException("error: ui serves pages, it prints no objects: leave -o out.");
    }
    if (port < 0 || port > 65535) {
      throw new PluginException(
          "error: --port "
              + port
              + " is not a port: write 1-65535, or leave it out for a free one.");
    }
    PrintWriter out = spec.commandLine().getOut();
    try (PluginConnection c = options.connect()) {
      UiServer ui;
      try {
        ui = UiServer.start(c.http(), c.base(), options.namespace(c), port);
      } catch (BindException e) {
        throw new PluginException(
            "error: port "
                + port
                + " on 127.0.0.1 is taken: choose another with --port, or leave --port out for a"
                + " free one.");
      }
      warmUp(c);
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    ui.close();
                    stopped.countDown();
                  }));
      out.println("Serving the octomy-batch pages (read-only) at " + ui.url());
      out.println("Open it in a browser; Ctrl-C stops the server.");
      out.flush();
      if (open) {
        browse(ui, out);
      }
      stopped.await();
      return 0;
    }
  }

  /**
   * One read of the API server's version, answer unused, while the user opens the page: otherwise
   * the page's first reads pay for this process's first connection (its TLS, the client's first
   * use), which doubled their time. A failure is the page's to say, on its own reads.
   */
  private static void warmUp(PluginConnection c) {
    c.http()
        .sendAsync(
            c.http().newHttpRequestBuilder().uri(c.base() + "/version").build(), byte[].class)
        .exceptionally(e -> null);
  }

  private static void browse(UiServer ui, PrintWriter out) {
    if (GraphicsEnvironment.isHeadless()
        || !Desktop.isDesktopSupported()
        || !Desktop.getDesktop().isSupported(Desktop.Action.BROWSE)) {
      out.println("No desktop browser can be opened from here: open " + ui.url() + " yourself.");
      out.flush();
      return;
    }
    try {
      Desktop.getDesktop().browse(ui.url());
    } catch (IOException | UnsupportedOperationException e) {
      out.println("The browser did not open (" + e.getMessage() + "): open " + ui.url() + ".");
      out.flush();
    }
  }
}
