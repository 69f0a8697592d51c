package io.octomy.batch.controller.aggregated;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

  private final KubernetesClient client;
  private final BooleanSupplier deciding;
  private final String caBundle;
  private final String podNamespace;
  private final String podName;
  private final ScheduledExecutorService timer;
  private volatile Boolean published;
  private volatile boolean webhookPublished;

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

  void check() {
    boolean now = deciding.getAsBoolean();
    if (!now) {
      // another replica publishes its own certificate: publish again when deciding again
      webhookPublished = false;
      webhookChecksToSkip = 0;
    } else if (!webhookPublished && webhookChecksToSkip-- <= 0) {
      publishWebhookCaBundle();
    }
    if (Objects.equals(published, now)) {
      return;
    }
    try {
      if (now) {
        publishCaBundle();
      }
      label(now);
      published = now;
      LOG.info(now ? "answering visibility calls" : "not answering visibility calls");
    } catch (KubernetesClientException e) {
      LOG.warn("cannot publish whether this replica answers visibility calls: {}", e.getMessage());
    }
  }

  private void publishCaBundle() {
    var apiServices = client.genericKubernetesResources("apiregistration.k8s.io/v1", "APIService");
    GenericKubernetesResource current = apiServices.withName(API_SERVICE).get();
    if (current == null) {
      if (!missingApiServiceLogged) {
        LOG.warn(
            "APIService {} does not exist: kubectl octomy and the visibility paths answer only"
                + " once the chart registers it (visibility.enabled)",
            API_SERVICE);
        missingApiServiceLogged = true;
      }
      return;
    }
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
