package io.octomy.batch.controller.aggregated;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.controller.visibility.AgentOutputFetch;
import io.octomy.batch.controller.visibility.AgentTokens;
import io.octomy.batch.controller.visibility.ControllerVisibility;
import io.octomy.batch.controller.visibility.JobOutputs;
import io.octomy.batch.controller.visibility.VisibilityApi;
import io.octomy.batch.tls.SelfSignedCertificate;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The visibility API of a controller on a cluster, wired: the request-header settings read from
 * {@code kube-system/extension-apiserver-authentication}, a serving certificate made at start for
 * the visibility Service's names, the HTTPS server with delegated authentication and authorization,
 * and {@link ServingReplica} so that only the deciding replica is reached.
 *
 * <p>Why a certificate made at start rather than one from a Secret: no private key is stored
 * anywhere, nothing expires unnoticed, and the chart renders the same objects for Helm and for
 * kustomize. The replica that answers publishes its own certificate as the APIService's {@code
 * caBundle} when it starts answering, and reports ready only once the API server reaches it.
 */
public final class AggregatedVisibility implements AutoCloseable {

  /** Ten years: the certificate is replaced whenever the process starts. */
  private static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(3650);

  /**
   * @param port where to listen (0: a free port)
   * @param service the name of the Service the APIService names (the certificate's host names)
   * @param namespace the namespace of that Service and of this replica's Pod
   * @param podName this replica's Pod (POD_NAME), or null outside a Pod
   */
  public record ServingOptions(
      String host, int port, String service, String namespace, String podName) {}

  private final ControllerVisibility visibility;
  private final BatchController controller;
  private final Vertx vertx;
  private final VisibilityHttpsServer server;
  private final ServingReplica serving;
  private final int port;

  private AggregatedVisibility(
      BatchController controller,
      ControllerVisibility visibility,
      Vertx vertx,
      VisibilityHttpsServer server,
      ServingReplica serving,
      int port) {
    this.controller = controller;
    this.visibility = visibility;
    this.vertx = vertx;
    this.server = server;
    this.serving = serving;
    this.port = port;
  }

  /**
   * Starts serving.
   *
   * @throws IllegalArgumentException with what to do when the API server publishes no
   *     request-header settings
   */
  public static AggregatedVisibility start(
      KubernetesClient client, BatchController controller, Clock clock, ServingOptions settings) {
    ConfigMap published =
        client
            .configMaps()
            .inNamespace(RequestHeaderSettings.CONFIG_MAP_NAMESPACE)
            .withName(RequestHeaderSettings.CONFIG_MAP_NAME)
            .get();
    RequestHeaderSettings headers =
        RequestHeaderSettings.from(published == null ? null : published.getData());
    String svc = settings.service() + "." + settings.namespace() + ".svc";
    SelfSignedCertificate certificate =
        SelfSignedCertificate.create(
            svc,
            List.of(
                settings.service(),
                settings.service() + "." + settings.namespace(),
                svc,
                svc + ".cluster.local"),
            List.of(),
            CERTIFICATE_VALIDITY);
    AgentTokens tokens = new AgentTokens(client, clock);
    AgentOutputFetch agents = new AgentOutputFetch(node -> node(controller, node), tokens::forNode);
    // A cluster's job output stays on its node: read from that node's agent, never from here.
    ControllerVisibility visibility =
        ControllerVisibility.start(client, controller, clock, JobOutputs.NONE, agents);
    VisibilityApi api = visibility.api();
    KubernetesReviews reviews = new KubernetesReviews(client);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1));
    VisibilityHttpsServer server =
        new VisibilityHttpsServer(
            vertx,
            api,
            new DelegatedAuthentication(headers, reviews),
            new ListPermissions(reviews, clock));
    int port = server.start(settings.host(), settings.port(), certificate, headers.clientCaPem());
    ServingReplica serving =
        new ServingReplica(
            client,
            () -> controller.loop().lastPass().isPresent(),
            certificate.certificatePem(),
            settings.namespace(),
            settings.podName());
    // The deciding replica reports ready only once the API server reaches it here.
    controller.readiness().requireWhileDeciding(serving::answering);
    serving.start();
    return new AggregatedVisibility(controller, visibility, vertx, server, serving, port);
  }

  /**
   * Whether kubectl octomy logs reaches the output of {@code node}'s jobs through this API: its
   * agent publishes where it serves them.
   */
  public boolean servesOutputOf(String node) {
    return node(controller, node)
        .map(n -> n.getStatus() != null && n.getStatus().getLogEndpoint() != null)
        .orElse(false);
  }

  private static Optional<BatchNode> node(BatchController controller, String name) {
    return controller.caches().nodes().stream()
        .filter(n -> name != null && name.equals(n.getMetadata().getName()))
        .findFirst();
  }

  public int port() {
    return port;
  }

  @Override
  public void close() {
    serving.close();
    server.close();
    vertx.close();
    visibility.close();
  }
}
