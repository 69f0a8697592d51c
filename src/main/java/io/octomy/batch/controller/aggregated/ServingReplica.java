package io.octomy.batch.controller.aggregated;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Only the replica that decides answers visibility calls. While this replica decides (it holds the
 * Lease and has made a pass), it publishes its serving certificate as the APIService's {@code
 * caBundle} and carries the label {@value #LABEL}={@value #SERVING} on its Pod, which the
 * visibility Service selects; once it stops deciding it takes the label off. A replica starts
 * without the label (a restart after a lost Lease may find it left on), and a replica that does not
 * decide answers 503 from its last state rather than a stale queue, so a request that reaches it
 * during a hand-over is refused, never answered wrongly.
 *
 * <p>The replica that answers also publishes its certificate as the caBundle of {@link
 * ReservationFinalizerWebhook}'s configuration, which the same Service reaches. That one is
 * optional: without it (or without the permission to write it) jobs are admitted with two writes,
 * so a failure there is logged once, tried again a minute later, and never holds up the rest.
 *
 * <p>Published is not yet answering: the API server must also trust the new caBundle and route to
 * this replica. So after publishing, each check asks for the group's discovery through the API
 * server until it answers; {@link #answering()} (what the deciding replica's readiness waits for)
 * holds from then on. A cluster whose API server cannot reach the replica at all (no route to the
 * Service) would otherwise keep a deciding controller unready for good: after {@link
 * #REACH_PATIENCE_SECONDS} seconds the replica says so in its log and counts as answering.
 *
 * <p>Checked every second; a write that fails is tried again on the next check.
 */
public final class ServingReplica implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ServingReplica.class);

  public static final String LABEL = "batch.octomy.io/visibility";
  public static final String SERVING = "serving";
  public static final String API_SERVICE = "v1alpha1.visibility.batch.octomy.io";

  /**
   * The chart's MutatingWebhookConfiguration of {@link ReservationFinalizerWebhook}, and its one
   * webhook.
   */
  public static final String WEBHOOK_CONFIGURATION = "octomy-batch-reservation-finalizer";

  public static final String WEBHOOK = "reservation-finalizer.batch.octomy.io";

  /** After a problem with the webhook's configuration, the next try is a minute of checks away. */
  private static final int WEBHOOK_RETRY_CHECKS = 60;

  /** How long a published replica waits for the API server to reach it before it stops waiting. */
  static final long REACH_PATIENCE_SECONDS = 60;

  private static final String DISCOVERY_PATH = "apis/visibility.batch.octomy.io/v1alpha1";

  private final KubernetesClient client;
  private final BooleanSupplier deciding;
  private final String caBundle;
  private final String podNamespace;
  private final String podName;
  private final ScheduledExecutorService timer;
  private volatile Boolean published;
  private volatile boolean webhookPublished;

  /** The webhook's caBundle was written, or found impossible to write (logged). */
  private volatile boolean webhookSettled;

  /** Whether the APIService exists: without it there is nothing to be reached through. */
  private volatile boolean apiServiceRegistered;

  private volatile boolean reached;
  private volatile boolean stoppedWaitingToBeReached;
  private long publishedAtNanos;
  private String lastReachFailure = "";

  /** For the discovery call only: a 503 is answered at once, not retried with back-off. */
  private final KubernetesClient discovery;

  /**
   * Checks of the webhook to skip after a problem: a chart without it is not asked every second.
   */
  private int webhookChecksToSkip;

  private boolean missingApiServiceLogged;
  private boolean webhookProblemLogged;

  /**
   * @param podName this replica's Pod (POD_NAME), or null when it runs outside a Pod: then only the
   *     caBundle is published
   */
  public ServingReplica(
      KubernetesClient client,
      BooleanSupplier deciding,
      String certificatePem,
      String podNamespace,
      String podName) {
    this.client = client;
    this.deciding = deciding;
    this.caBundle =
        Base64.getEncoder().encodeToString(certificatePem.getBytes(StandardCharsets.US_ASCII));
    this.podNamespace = podNamespace;
    this.podName = podName;
    this.discovery =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build();
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "octomy-visibility-serving");
              t.setDaemon(true);
              return t;
            });
  }

  public void start() {
    timer.scheduleWithFixedDelay(this::check, 0, 1, TimeUnit.SECONDS);
  }

  /** Whether this replica has published itself as the one that answers. */
  public boolean serving() {
    return Boolean.TRUE.equals(published);
  }

  /**
   * Whether this replica answers: published, its webhook settled, and reached through the API
   * server (or waited for past {@link #REACH_PATIENCE_SECONDS} seconds).
   */
  public boolean answering() {
    return serving()
        && webhookSettled
        && (!apiServiceRegistered || reached || stoppedWaitingToBeReached);
  }

  void check() {
    boolean now = deciding.getAsBoolean();
    if (!now) {
      // another replica publishes its own certificate: publish again when deciding again
      webhookPublished = false;
      webhookSettled = false;
      webhookChecksToSkip = 0;
      reached = false;
    } else if (!webhookPublished && webhookChecksToSkip-- <= 0) {
      publishWebhookCaBundle();
    }
    if (!Objects.equals(published, now)) {
      publish(now);
    }
    if (now && serving() && apiServiceRegistered && !reached) {
      askThroughTheApiServer();
    }
  }

  private void publish(boolean now) {
    try {
      if (now) {
        publishCaBundle();
      }
      label(now);
      published = now;
      publishedAtNanos = System.nanoTime();
      LOG.info(now ? "answering visibility calls" : "not answering visibility calls");
    } catch (KubernetesClientException e) {
      LOG.warn("cannot publish whether this replica answers visibility calls: {}", e.getMessage());
    }
  }

  /** One discovery call through the API server's aggregator, bounded to two seconds. */
  private void askThroughTheApiServer() {
    HttpClient http = discovery.getHttpClient();
    String base = discovery.getConfiguration().getMasterUrl();
    String uri = (base.endsWith("/") ? base : base + "/") + DISCOVERY_PATH;
    try {
      HttpResponse<String> r =
          http.sendAsync(
                  http.newHttpRequestBuilder()
                      .uri(uri)
                      .header("Accept", "application/json")
                      .timeout(2, TimeUnit.SECONDS)
                      .build(),
                  String.class)
              .get(3, TimeUnit.SECONDS);
      if (r.isSuccessful()) {
        reached = true;
        LOG.info("the API server reaches this replica: kubectl octomy answers");
        return;
      }
      lastReachFailure = "HTTP " + r.code() + " " + String.valueOf(r.body()).strip();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (ExecutionException | TimeoutException e) {
      lastReachFailure = String.valueOf(e.getCause() == null ? e : e.getCause());
    }
    if (!stoppedWaitingToBeReached
        && System.nanoTime() - publishedAtNanos
            > TimeUnit.SECONDS.toNanos(REACH_PATIENCE_SECONDS)) {
      stoppedWaitingToBeReached = true;
      LOG.warn(
          "the API server has not reached this replica's visibility API within {} s ({}): reporting"
              + " ready all the same, as decisions do not depend on it; see kubectl get apiservice"
              + " {}",
          REACH_PATIENCE_SECONDS,
          lastReachFailure,
          API_SERVICE);
    }
  }

  private void publishCaBundle() {
    var apiServices = client.genericKubernetesResources("apiregistration.k8s.io/v1", "APIService");
    GenericKubernetesResource current = apiServices.withName(API_SERVICE).get();
    if (current == null) {
      apiServiceRegistered = false;
      if (!missingApiServiceLogged) {
        LOG.warn(
            "APIService {} does not exist: kubectl octomy and the visibility paths answer only"
                + " once the chart registers it (visibility.enabled)",
            API_SERVICE);
        missingApiServiceLogged = true;
      }
      return;
    }
    apiServiceRegistered = true;
    Object spec = current.getAdditionalProperties().get("spec");
    Object existing = spec instanceof Map<?, ?> m ? m.get("caBundle") : null;
    if (!caBundle.equals(existing)) {
      apiServices
          .withName(API_SERVICE)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"caBundle\":\"" + caBundle + "\"}}");
    }
  }

  /**
   * Puts this replica's certificate in the webhook's {@code clientConfig.caBundle}, with a JSON
   * patch that first tests the webhook's name at that place in the list.
   */
  private void publishWebhookCaBundle() {
    try {
      var configurations =
          client.genericKubernetesResources(
              "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration");
      GenericKubernetesResource current = configurations.withName(WEBHOOK_CONFIGURATION).get();
      if (current == null) {
        webhookProblem("MutatingWebhookConfiguration " + WEBHOOK_CONFIGURATION + " does not exist");
        return;
      }
      Object webhooks = current.getAdditionalProperties().get("webhooks");
      List<?> list = webhooks instanceof List<?> l ? l : List.of();
      for (int i = 0; i < list.size(); i++) {
        if (list.get(i) instanceof Map<?, ?> w && WEBHOOK.equals(w.get("name"))) {
          Object config = w.get("clientConfig");
          Object existing = config instanceof Map<?, ?> c ? c.get("caBundle") : null;
          if (!caBundle.equals(existing)) {
            configurations
                .withName(WEBHOOK_CONFIGURATION)
                .patch(
                    PatchContext.of(PatchType.JSON),
                    "[{\"op\":\"test\",\"path\":\"/webhooks/"
                        + i
                        + "/name\",\"value\":\""
                        + WEBHOOK
                        + "\"},{\"op\":\"add\",\"path\":\"/webhooks/"
                        + i
                        + "/clientConfig/caBundle\",\"value\":\""
                        + caBundle
                        + "\"}]");
          }
          webhookPublished = true;
          webhookSettled = true;
          webhookProblemLogged = false;
          LOG.info("new BatchJobs get the reservation finalizer from this replica's webhook");
          return;
        }
      }
      webhookProblem(WEBHOOK_CONFIGURATION + " has no webhook named " + WEBHOOK);
    } catch (KubernetesClientException e) {
      webhookProblem("cannot publish the webhook's caBundle: " + e.getMessage());
    }
  }

  private void webhookProblem(String why) {
    webhookChecksToSkip = WEBHOOK_RETRY_CHECKS;
    // Creates do not wait for a webhook that cannot be published: readiness does not either.
    webhookSettled = true;
    if (!webhookProblemLogged) {
      LOG.warn(
          "{}: new BatchJobs get the reservation finalizer from the controller before their"
              + " admission, one more write each (tried again every minute)",
          why);
      webhookProblemLogged = true;
    }
  }

  private void label(boolean serving) {
    if (podName == null || podName.isBlank()) {
      return;
    }
    String value = serving ? "\"" + SERVING + "\"" : "null";
    client
        .pods()
        .inNamespace(podNamespace)
        .withName(podName)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + LABEL + "\":" + value + "}}}");
  }

  /** Takes the label off (a clean shutdown hands over at once) and stops checking. */
  @Override
  public void close() {
    timer.shutdownNow();
    discovery.close();
    webhookPublished = false;
    if (serving()) {
      try {
        label(false);
      } catch (KubernetesClientException e) {
        LOG.warn("cannot take the visibility label off pod {}: {}", podName, e.getMessage());
      }
    }
  }
}
