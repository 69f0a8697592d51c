package io.octomy.batch.standalone;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.agent.AgentSettings;
import io.octomy.batch.agent.NodeAgent;
import io.octomy.batch.agent.OshiHostProbe;
import io.octomy.batch.agent.ProcessExecutor;
import io.octomy.batch.agent.RunKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.crd.CrdFinisher;
import io.octomy.batch.apiserver.CreateFinalizers;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.apiserver.ServerCannotStart;
import io.octomy.batch.apiserver.ServerLimits;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.FinalizerRelease;
import io.octomy.batch.controller.visibility.ControllerVisibility;
import io.octomy.batch.vocabulary.CannotStart;
import io.octomy.batch.vocabulary.FieldManagers;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Standalone mode in one process: the embedded API server (state in SQLite under the state
 * directory), the controller (no leader election: there is one of it), and a local agent that runs
 * admitted jobs as processes. Closing stops them in reverse order; job processes keep running and
 * are re-adopted by the next start on the same state directory.
 */
public final class StandaloneRuntime implements AutoCloseable {

  /**
   * What standalone mode is started with. {@code metricsPort} -1 keeps /metrics off; {@code
   * rotateCredentials} replaces the kept certificate and token.
   */
  public record StandaloneOptions(
      Path stateDir,
      int port,
      String nodeName,
      NodeMode mode,
      Map<String, Long> capacity,
      Policy policy,
      int metricsPort,
      boolean rotateCredentials) {}

  private final EmbeddedApiServer server;
  private final KubernetesClient client;
  private final KubernetesClient agentClient;
  private final BatchController controller;
  private final ControllerVisibility visibility;
  private final NodeAgent agent;

  private StandaloneRuntime(
      EmbeddedApiServer server,
      KubernetesClient client,
      KubernetesClient agentClient,
      BatchController controller,
      ControllerVisibility visibility,
      NodeAgent agent) {
    this.server = server;
    this.client = client;
    this.agentClient = agentClient;
    this.controller = controller;
    this.visibility = visibility;
    this.agent = agent;
  }

  public static StandaloneRuntime start(StandaloneOptions o, Clock clock)
      throws IOException, InterruptedException {
    EmbeddedApiServer server;
    try {
      server =
          EmbeddedApiServer.start(
              o.stateDir(),
              o.port(),
              productCrds(),
              o.rotateCredentials(),
              ServerLimits.defaults(),
              reservationFromCreate());
    } catch (ServerCannotStart refusal) {
      // the user's to fix (a port or state directory in use): the command prints the sentence
      throw new CannotStart(refusal.getMessage(), refusal);
    }
    KubernetesClient client = null;
    KubernetesClient agentClient = null;
    NodeAgent agent = null;
    BatchController controller = null;
    ControllerVisibility visibility = null;
    try {
      // two clients, so that each one's writes name it as their field manager
      client = server.inProcessClient(FieldManagers.userAgent(FieldManagers.CONTROLLER));
      agentClient = server.inProcessClient(FieldManagers.userAgent(FieldManagers.AGENT));
      AgentSettings settings =
          AgentSettings.defaults(o.nodeName())
              .withInitialMode(o.mode())
              .withCapacityOverrides(o.capacity())
              .withStateDir(o.stateDir().resolve("agent"))
              .withModeTable(o.policy().modes());
      // The agent starts beside the controller rather than after it: neither waits for the other
      // (on a cluster they are separate processes), and at a restart on many jobs the controller's
      // list and first pass take seconds the agent's own start need not wait out.
      agent = new NodeAgent(agentClient, settings, new OshiHostProbe(), clock);
      FutureTask<NodeAgent> agentStart = new FutureTask<>(agent::start);
      Thread starter = new Thread(agentStart, "agent-start");
      starter.setDaemon(true);
      starter.start();
      controller =
          BatchController.start(
              client,
              new BatchController.ControllerOptions(
                  o.policy(),
                  false,
                  "default",
                  "127.0.0.1",
                  o.metricsPort(),
                  // one process: a finished job's finalizer can wait for its delete
                  AdmissionLoop.Settings.defaults()
                      .withFinalizerRelease(FinalizerRelease.AT_DELETE)
                      // its visibility API reads this node's job output (see below)
                      .withLogsServedOn(settings.nodeName()::equals)),
              clock);
      Path agentState = settings.stateDir();
      String local = settings.nodeName();
      visibility =
          ControllerVisibility.start(
              client,
              controller,
              clock,
              (node, namespace, name, uid, run, replica) ->
                  local.equals(node)
                      ? Optional.of(
                          ProcessExecutor.logFile(
                              agentState, new RunKey(namespace, name, uid, run, replica)))
                      : Optional.empty());
      server.delegate(new VisibilityGroup(visibility.api()));
      awaitStarted(agentStart);
      return new StandaloneRuntime(server, client, agentClient, controller, visibility, agent);
    } catch (RuntimeException | IOException | InterruptedException e) {
      // Nothing half-started stays behind: the state directory's lock is released for the next try.
      if (agent != null) {
        agent.close(); // waits for a start under way to end, at most NodeAgent.STOP_BOUND
      }
      if (visibility != null) {
        visibility.close();
      }
      if (controller != null) {
        controller.close();
      }
      if (client != null) {
        client.close();
      }
      if (agentClient != null) {
        agentClient.close();
      }
      server.close();
      throw e;
    }
  }

  private static void awaitStarted(FutureTask<NodeAgent> agentStart) throws InterruptedException {
    try {
      agentStart.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException("the local agent did not start", e.getCause());
    }
  }

  /**
   * The controller's finalizer on every new BatchJob: it runs in this process, so an admission need
   * not write it first (see {@link CreateFinalizers}; on a cluster the controller writes it).
   */
  public static CreateFinalizers reservationFromCreate() {
    return CreateFinalizers.of(
        HasMetadata.getGroup(BatchJob.class),
        HasMetadata.getPlural(BatchJob.class),
        Finalizers.RESERVATION);
  }

  /** The generated CRDs, from the jar (or the build output). */
  public static List<String> productCrds() {
    List<String> crds = new ArrayList<>();
    for (String name : CrdFinisher.KINDS.keySet()) {
      String resource = "/META-INF/fabric8/" + name + "-v1.yml";
      try (InputStream in = StandaloneRuntime.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is missing from the build");
        }
        crds.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return crds;
  }

  public EmbeddedApiServer server() {
    return server;
  }

  public KubernetesClient client() {
    return client;
  }

  public BatchController controller() {
    return controller;
  }

  @Override
  public void close() {
    agent.close();
    visibility.close();
    controller.close();
    client.close();
    agentClient.close();
    server.close();
  }
}
