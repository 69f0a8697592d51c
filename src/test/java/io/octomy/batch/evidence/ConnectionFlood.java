package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A flood of unauthenticated connections at standalone mode as a user starts it (launcher and
 * server JVM): two processes (one process's descriptors would not hold them all) each open half of
 * them and hold them, while the server's descriptors are sampled. Then: are both JVMs alive, does
 * the API answer, does a job created afterwards run. Prints one line.
 *
 * <pre>
 * flock /tmp/octomy-heavy.lock java -cp $CP io.octomy.batch.evidence.ConnectionFlood [CONNECTIONS]
 * </pre>
 */
final class ConnectionFlood {

  private static final Duration HOLD = Duration.ofSeconds(45);

  private ConnectionFlood() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("--open")) {
      open(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
      return;
    }
    int connections = args.length > 0 ? Integer.parseInt(args[0]) : 30_000;
    Path dir = Files.createTempDirectory("octomy-flood");
    try (ChildJvm standalone = StandaloneChild.start(List.of(), dir, "standalone")) {
      Config config = StandaloneChild.config(standalone);
      int port = URI.create(config.getMasterUrl()).getPort();
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        StandaloneChild.awaitNodeReady(client);
        ProcessHandle server =
            ProcessHandle.of(standalone.pid()).orElseThrow().children().findFirst().orElseThrow();
        List<ChildJvm> flooders = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          flooders.add(
              ChildJvm.start(
                  dir.resolve("flood-" + i + ".log"),
                  "256m",
                  ConnectionFlood.class.getName(),
                  "--open",
                  Integer.toString(port),
                  Integer.toString(connections / 2)));
        }
        long most = 0;
        long end = System.nanoTime() + HOLD.toNanos();
        while (System.nanoTime() < end) {
          most = Math.max(most, descriptors(server));
          Thread.sleep(250);
        }
        boolean servedDuring = answers(client);
        for (ChildJvm f : flooders) {
          f.close();
        }
        boolean alive = standalone.alive() && server.isAlive();
        String phase = runsAJob(client);
        String log = Files.readString(dir.resolve("standalone.log"));
        System.out.printf(
            "connection flood: %d connections from 2 processes (%s; %s), held %d s: the server"
                + " held at most %d descriptors of %s; refusals logged in %d line(s)%s; launcher"
                + " and server alive: %s; API answered at the end of the hold: %s; a job created"
                + " after: %s%n",
            connections,
            Files.readString(dir.resolve("flood-0.log")).strip(),
            Files.readString(dir.resolve("flood-1.log")).strip(),
            HOLD.toSeconds(),
            most,
            limit(server),
            log.split("refusing new connections: ", -1).length - 1,
            capLine(log),
            alive,
            servedDuring,
            phase);
      }
    } finally {
      StandaloneChild.deleteTree(dir);
    }
  }

  /** The flooding side: opens {@code count} connections, holds them, reports how many connected. */
  private static void open(int port, int count) throws InterruptedException {
    List<Socket> held = new ArrayList<>();
    int connected = 0;
    int failed = 0;
    for (int i = 0; i < count; i++) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
        held.add(s);
        connected++;
      } catch (IOException e) {
        failed++;
        try {
          s.close();
        } catch (IOException ignored) {
          // never opened
        }
      }
    }
    System.out.printf("%d connected, %d failed%n", connected, failed);
    System.out.flush();
    Thread.sleep(HOLD.toMillis() * 2);
  }

  private static boolean answers(KubernetesClient client) {
    try {
      return client.namespaces().withName("default").get() != null;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String runsAJob(KubernetesClient client) throws InterruptedException {
    BatchJob job = new BatchJob();
    job.setMetadata(
        new ObjectMetaBuilder().withName("after-flood").withNamespace("default").build());
    BatchJobSpec spec = new BatchJobSpec();
    spec.setTemplate(
        new PodTemplateSpecBuilder()
            .withNewSpec()
            .withRestartPolicy("Never")
            .addNewContainer()
            .withName("m")
            .withImage("x")
            .withCommand("true")
            .endContainer()
            .endSpec()
            .build());
    job.setSpec(spec);
    client.resources(BatchJob.class).resource(job).create();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String phase = "none";
    while (System.nanoTime() < deadline) {
      BatchJob now =
          client.resources(BatchJob.class).inNamespace("default").withName("after-flood").get();
      phase =
          Optional.ofNullable(now.getStatus())
              .map(s -> String.valueOf(s.getPhase()))
              .orElse("none");
      if (phase.equals("Succeeded") || phase.equals("Failed")) {
        return phase;
      }
      Thread.sleep(200);
    }
    return phase + " after 60 s";
  }

  private static long descriptors(ProcessHandle p) {
    try (var fds = Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
      return fds.count();
    } catch (IOException e) {
      return -1;
    }
  }

  private static String limit(ProcessHandle p) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "limits"))) {
      if (line.startsWith("Max open files")) {
        return line.substring("Max open files".length()).trim().split("\\s+")[0];
      }
    }
    return "?";
  }

  private static String capLine(String log) {
    int at = log.indexOf("refusing new connections: ");
    return at < 0 ? "" : " (" + log.substring(at, log.indexOf(" are open", at)) + " open)";
  }
}
