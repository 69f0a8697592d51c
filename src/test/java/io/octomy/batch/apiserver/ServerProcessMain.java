package io.octomy.batch.apiserver;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Runs the embedded server in its own JVM (for the kill -9 test and for trying kubectl by hand):
 * {@code ServerProcessMain STATE_DIR PORT [CRD_FILE...]}. Prints {@code READY <url>} once serving.
 */
public final class ServerProcessMain {

  private ServerProcessMain() {}

  public static void main(String[] args) throws Exception {
    List<Path> crds = Arrays.stream(args).skip(2).map(Path::of).toList();
    EmbeddedApiServer server =
        EmbeddedApiServer.start(Path.of(args[0]), Integer.parseInt(args[1]), crds);
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    System.out.println("READY " + server.url());
    System.out.flush();
    Thread.currentThread().join();
  }
}
