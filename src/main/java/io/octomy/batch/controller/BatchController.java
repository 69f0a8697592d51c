package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.Cloner;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.OwnerlessItemStore;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller, wired: a JOSDK operator whose reconciler feeds the one admission loop, optional
 * leader election on a Lease, and the metrics and health endpoints.
 */
public final class BatchController implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BatchController.class);

  /**
   * How the controller runs. {@code metricsPort} -1 turns the HTTP endpoints off; 0 picks a free
   * port. {@code exitOnLostLease} ends the process when the Lease is lost, so a fresh replica
   * starts from a clean cache; either way the loop stops deciding at once.
   */
  public record ControllerOptions(
      Policy policy,
      boolean leaderElection,
      String leaseNamespace,
      String metricsHost,
      int metricsPort,
      AdmissionLoop.Settings loop,
      Duration leaseDuration,
      boolean exitOnLostLease) {

    public ControllerOptions(
        Policy policy,
        boolean leaderElection,
        String leaseNamespace,
        String metricsHost,
        int metricsPort,
        AdmissionLoop.Settings loop) {
      this(
          policy,
          leaderElection,
          leaseNamespace,
          metricsHost,
          metricsPort,
          loop,
          LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
          true);
    }
  }

  private final Operator operator;
  private final AdmissionLoop loop;
  private final HealthServer health;
  private final ControllerMetrics metrics;
  private final ClusterView caches;
  private final ControllerReadiness readiness;

  private final AtomicBoolean closing;
  private final LeaseRelease leaseRelease;

  private BatchController(
      Operator operator,
      AdmissionLoop loop,
      HealthServer health,
      ControllerMetrics metrics,
      ClusterView caches,
      AtomicBoolean closing,
      LeaseRelease leaseRelease,
      ControllerReadiness readiness) {
    this.readiness = readiness;
    this.caches = caches;
    this.closing = closing;
    this.leaseRelease = leaseRelease;
    this.operator = operator;
    this.loop = loop;
    this.health = health;
    this.metrics = metrics;
  }

  /** Builds and starts the controller; returns once the informers are running. */
  public static BatchController start(
      KubernetesClient client, ControllerOptions options, Clock clock) throws IOException {
    return start(client, options, clock, false);
  }

  /**
   * As above; with {@code servesVisibility}, the deciding replica is not ready until the visibility
   * API (started after this returns) says it answers ({@link ControllerReadiness}), nor ready by
   * mistake in between.
   */
  public static BatchController start(
      KubernetesClient client, ControllerOptions options, Clock clock, boolean servesVisibility)
      throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(registry);
    CacheView caches = new CacheView();
    AtomicBoolean closing = new AtomicBoolean();
    AdmissionLoop loop =
        new AdmissionLoop(
            caches,
            new KubernetesWriter(client, clock),
            options.policy(),
            clock,
            metrics,
            options.loop());
    String identity = System.getenv().getOrDefault("POD_NAME", "octomy-" + UUID.randomUUID());
    LeaseRelease leaseRelease =
        options.leaderElection()
            ? new LeaseRelease(client, options.leaseNamespace(), Labels.COMPONENT, identity)
            : null;
    LeaderActivation activation = new LeaderActivation(loop);
    ControllerReadiness readiness = new ControllerReadiness(options.leaderElection(), identity);
    if (servesVisibility) {
      readiness.requireWhileDeciding(() -> false);
    }
    Operator operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  // The embedded and mock API servers take merge patches only; status goes through
                  // updates anyway.
                  .withUseSSAToPatchPrimaryResource(false)
                  .withSSABasedCreateUpdateMatchForDependentResources(false)
                  .withConcurrentReconciliationThreads(2)
                  .withResourceCloner(new CachedObjectsUncopied());
              if (options.leaderElection()) {
                Duration lease = options.leaseDuration();
                // Renew well before the lease runs out, retry a few times within it (the defaults
                // keep these ratios: 15s/10s/2s).
                Duration renew = lease.multipliedBy(2).dividedBy(3);
                Duration retry = lease.dividedBy(7);
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        Labels.COMPONENT,
                        options.leaseNamespace(),
                        lease,
                        renew,
                        retry,
                        identity,
                        new LeaderCallbacks(
                            () -> {
                              LOG.info("leading as {}", identity);
                              activation.startedLeading();
                            },
                            () -> {
                              activation.stoppedLeading();
                              // Stop deciding before anything else: another replica may already
                              // lead.
                              loop.deactivate();
                              if (closing.get()) {
                                // Our own shutdown: close() releases the Lease once the elector
                                // has stopped.
                                return;
                              }
                              LOG.warn(
                                  "lost the lease as {}; no more decisions from this replica{}",
                                  identity,
                                  options.exitOnLostLease()
                                      ? "; exiting so that a fresh process starts from a clean"
                                          + " cache"
                                      : "");
                              if (options.exitOnLostLease()) {
                                // Not JOSDK's own exit: that one would also fire while a
                                // shutdown hook stops us, and exit() inside a hook never returns.
                                new Thread(() -> System.exit(1), "lost-lease-exit").start();
                              }
                            },
                            leader -> {
                              readiness.leaderIs(leader);
                              LOG.info("leader is {}", leader);
                            }),
                        false));
              }
            });
    activation.watch(
        operator.register(
            new BatchJobReconciler(loop, caches),
            // listed in pages of 500, as client-go's informers list: a start on 100,000 jobs read
            // whole held every one typed with its field owners at once, more than the heap
            overrider ->
                overrider.withItemStore(new OwnerlessItemStore<>()).withInformerListLimit(500L)));
    loop.start();
    // Ready once the operator has started and the Lease's holder is known: the standby stands by,
    // the leader also answers what it serves (ControllerReadiness). Every replica of a healthy
    // Deployment is Ready, as with controller-runtime.
    HealthServer health =
        options.metricsPort() < 0
            ? null
            : new HealthServer(
                options.metricsHost(), options.metricsPort(), registry, readiness::notReadyBecause);
    operator.start();
    readiness.started();
    // Without leader election start() returns with every informer synced; with it, the leader
    // activates the loop once they have synced (LeaderActivation), or at its first reconcile.
    if (!options.leaderElection()) {
      loop.activate();
    }
    return new BatchController(
        operator, loop, health, metrics, caches, closing, leaseRelease, readiness);
  }

  /** What /readyz answers; the visibility API adds its own condition while this replica decides. */
  public ControllerReadiness readiness() {
    return readiness;
  }

  public AdmissionLoop loop() {
    return loop;
  }

  /** What the controller reads: its informer caches of jobs, nodes and job Pods. */
  public ClusterView caches() {
    return caches;
  }

  public ControllerMetrics metrics() {
    return metrics;
  }

  /** The port of /metrics, /healthz and /readyz, or -1 when off. */
  public int metricsPort() {
    return health == null ? -1 : health.port();
  }

  /**
   * Stops deciding, then the operator (which stops the elector: it renews no more), then gives the
   * Lease up so that a standby leads at its next retry. Only when the loop has really stopped: with
   * a pass or a status write still running past the loop's wait, the Lease is kept and runs out, so
   * no other replica decides while this one may still write.
   */
  @Override
  public void close() {
    closing.set(true);
    loop.close();
    operator.stop();
    if (leaseRelease != null) {
      if (loop.stopped()) {
        leaseRelease.release();
      } else {
        LOG.warn("the admission loop still writes: the Lease is kept until it runs out");
      }
    }
    if (health != null) {
      health.close();
    }
  }

  /** For logs: which kinds the controller watches. */
  public static String watches() {
    return BatchJob.class.getSimpleName() + ", BatchNode, Pod";
  }

  /**
   * JOSDK copies each job before reconciling it, so that a reconciler may change what it is handed
   * without changing the informer's cache. {@link BatchJobReconciler} neither reads nor changes the
   * job (it asks the loop for a pass), so the copy, a serialization round trip per event, bought
   * nothing: at a restart on 21,000 jobs, the first reconcile of each, copies took a third of the
   * processor time while standalone mode started its agent. Secondary resources are not copied
   * either way (JOSDK's default).
   */
  private static final class CachedObjectsUncopied implements Cloner {
    @Override
    public <R extends HasMetadata> R clone(R object) {
      return object;
    }
  }
}
