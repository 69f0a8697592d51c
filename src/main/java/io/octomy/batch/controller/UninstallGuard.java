package io.octomy.batch.controller;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.Finalizers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes an uninstall finish with jobs waiting and running. {@code helm uninstall} and {@code
 * kubectl delete -k} delete the controller's ServiceAccount and RBAC in the same second as
 * everything else; without them the controller could not take its reservation finalizer off the
 * jobs, and the jobs (with their CRD and namespace) would stay Terminating for good. So the
 * controller keeps its finalizer ({@link Finalizers#UNINSTALL_GUARD}) on those three objects. When
 * one of them is being deleted, this replica stops deciding for good, takes the reservation
 * finalizer off every job, and only then lets the three go.
 *
 * <p>Why nothing is admitted twice or overcommitted: the loop is closed (its last pass and writes
 * drained) before the first finalizer is released, and a closed loop never decides again; every
 * replica does the same on the same signal, so no standby takes over. A released job that still
 * runs keeps its place in its status, which a controller installed again reads as before.
 */
public final class UninstallGuard implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(UninstallGuard.class);
  private static final Duration RELEASE_WITHIN = Duration.ofSeconds(45);
  private static final long ROUND_MILLIS = 200;

  private final KubernetesClient client;
  private final AdmissionLoop loop;
  private final ClusterView view;

  /** Each guarded object and its path on the API server. */
  private record Guarded(Resource<? extends HasMetadata> resource, String path) {}

  private final List<Guarded> guarded = new ArrayList<>();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  private final AtomicBoolean uninstalling = new AtomicBoolean();
  private final AtomicBoolean refusedOnce = new AtomicBoolean();
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "uninstall-guard");
            t.setDaemon(true);
            return t;
          });

  private UninstallGuard(KubernetesClient client, AdmissionLoop loop, ClusterView view) {
    this.client = client;
    this.loop = loop;
    this.view = view;
  }

  /**
   * Guards the ServiceAccount {@code name} in {@code namespace} and the ClusterRole and
   * ClusterRoleBinding {@code name} (the chart names all three alike). Whatever cannot be watched
   * is said once in the log; the controller decides all the same.
   */
  public static UninstallGuard start(
      KubernetesClient client,
      String namespace,
      String name,
      AdmissionLoop loop,
      ClusterView view) {
    UninstallGuard g = new UninstallGuard(client, loop, view);
    String rbac = "/apis/rbac.authorization.k8s.io/v1/";
    g.guard(
        client.rbac().clusterRoleBindings().withName(name),
        "ClusterRoleBinding/" + name,
        rbac + "clusterrolebindings/" + name);
    g.guard(
        client.rbac().clusterRoles().withName(name),
        "ClusterRole/" + name,
        rbac + "clusterroles/" + name);
    g.guard(
        client.serviceAccounts().inNamespace(namespace).withName(name),
        "ServiceAccount " + namespace + "/" + name,
        "/api/v1/namespaces/" + namespace + "/serviceaccounts/" + name);
    return g;
  }

  private <T extends HasMetadata> void guard(Resource<T> resource, String what, String path) {
    try {
      informers.add(
          resource.inform(
              new ResourceEventHandler<T>() {
                @Override
                public void onAdd(T obj) {
                  seen(resource, obj);
                }

                @Override
                public void onUpdate(T old, T obj) {
                  seen(resource, obj);
                }

                @Override
                public void onDelete(T obj, boolean unknownFinalState) {
                  begin(what + " was deleted");
                }
              }));
      guarded.add(new Guarded(resource, path));
    } catch (RuntimeException e) {
      // Refused (403), or the informer could not start: the controller decides all the same.
      LOG.warn(
          "{} is not guarded ({}): uninstalling the product may leave BatchJobs Terminating"
              + " (docs/deployment.md, Uninstall)",
          what,
          e.getMessage());
    }
  }

  private <T extends HasMetadata> void seen(Resource<T> resource, T obj) {
    if (obj.getMetadata().getDeletionTimestamp() != null) {
      begin(obj.getKind() + "/" + obj.getMetadata().getName() + " is being deleted");
    } else if (!uninstalling.get() && !carriesGuard(obj)) {
      worker.execute(() -> addGuard(resource, obj));
    }
  }

  private <T extends HasMetadata> void addGuard(Resource<T> resource, T obj) {
    List<String> finalizers = new ArrayList<>(obj.getMetadata().getFinalizers());
    finalizers.add(Finalizers.UNINSTALL_GUARD);
    try {
      patchFinalizers(resource, obj.getMetadata().getResourceVersion(), finalizers);
    } catch (KubernetesClientException e) {
      // 409: the informer brings the newer version, and with it another try.
      if (e.getCode() != 409 && refusedOnce.compareAndSet(false, true)) {
        LOG.warn(
            "cannot put {} on {}/{} ({}): uninstalling the product may leave BatchJobs Terminating",
            Finalizers.UNINSTALL_GUARD,
            obj.getKind(),
            obj.getMetadata().getName(),
            e.getMessage());
      }
    }
  }

  private void begin(String why) {
    if (uninstalling.compareAndSet(false, true)) {
      worker.execute(() -> release(why));
    }
  }

  private void release(String why) {
    LOG.warn(
        "{}: the product is being uninstalled. This replica decides no more and takes {} off every"
            + " BatchJob, so that the jobs and their CRD can go",
        why,
        Finalizers.RESERVATION);
    // Closed first: its last pass and writes have drained, and it never decides again.
    loop.close();
    int released = releaseJobs();
    removeGuards();
    LOG.warn(
        "released {} BatchJobs and the ServiceAccount and RBAC this controller runs with",
        released);
  }

  /** Takes the reservation finalizer off every cached job that carries it; how many it took. */
  private int releaseJobs() {
    long deadline = System.nanoTime() + RELEASE_WITHIN.toNanos();
    Map<String, String> sentAt = new HashMap<>();
    int released = 0;
    while (System.nanoTime() < deadline) {
      List<BatchJob> carrying = view.jobs().stream().filter(ReservationFinalizer::on).toList();
      if (carrying.isEmpty()) {
        return released;
      }
      for (BatchJob job : carrying) {
        String uid = job.getMetadata().getUid();
        String version = job.getMetadata().getResourceVersion();
        if (version.equals(sentAt.get(uid))) {
          continue;
        }
        sentAt.put(uid, version);
        try {
          patchFinalizers(
              client
                  .resources(BatchJob.class)
                  .inNamespace(job.getMetadata().getNamespace())
                  .withName(job.getMetadata().getName()),
              version,
              ReservationFinalizer.removed(job));
          released++;
        } catch (KubernetesClientException e) {
          if (e.getCode() == 401 || e.getCode() == 403) {
            LOG.error(
                "cannot release BatchJobs any more ({}); those left keep {}",
                e.getMessage(),
                Finalizers.RESERVATION);
            return released;
          }
          // 404: gone already; 409: changed, tried again once the cache has the new version.
        }
      }
      sleep();
    }
    LOG.error("BatchJobs still carry {} after {}", Finalizers.RESERVATION, RELEASE_WITHIN);
    return released;
  }

  /**
   * Lets the three go, all at once. Each removal is authenticated by the ServiceAccount and
   * authorized by the ClusterRole through the ClusterRoleBinding, so whichever went first would
   * leave the others unremovable. So the three patches are built first and then sent back to back
   * from one thread on the client's one connection, without waiting for an answer: all three are
   * authorized before the first deletion has gone through storage into the API server's caches.
   * Each tests the entry it removes rather than a version: the uninstall marks the others deleted
   * in the same moment, and a conflict could not be retried afterwards.
   */
  private void removeGuards() {
    HttpClient http = client.getHttpClient();
    String base = client.getConfiguration().getMasterUrl().replaceAll("/$", "");
    List<HttpRequest> patches = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Guarded g : guarded) {
      HasMetadata obj;
      try {
        obj = g.resource().get();
      } catch (KubernetesClientException e) {
        LOG.error("cannot read what carries {}: {}", Finalizers.UNINSTALL_GUARD, e.getMessage());
        continue;
      }
      if (obj != null && carriesGuard(obj)) {
        String entry =
            "/metadata/finalizers/"
                + obj.getMetadata().getFinalizers().indexOf(Finalizers.UNINSTALL_GUARD);
        String patch =
            "[{\"op\":\"test\",\"path\":\""
                + entry
                + "\",\"value\":\""
                + Finalizers.UNINSTALL_GUARD
                + "\"},{\"op\":\"remove\",\"path\":\""
                + entry
                + "\"}]";
        patches.add(
            http.newHttpRequestBuilder()
                .uri(base + g.path())
                .method("PATCH", "application/json-patch+json", patch)
                .timeout(30, TimeUnit.SECONDS)
                .build());
        names.add(obj.getKind() + "/" + obj.getMetadata().getName());
      }
    }
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (HttpRequest r : patches) {
      answers.add(http.sendAsync(r, String.class));
    }
    for (int i = 0; i < answers.size(); i++) {
      String refused;
      try {
        HttpResponse<String> a = answers.get(i).get(30, TimeUnit.SECONDS);
        refused = a.isSuccessful() || a.code() == 404 ? null : a.code() + " " + a.body();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        refused = e.toString();
      }
      if (refused != null) {
        LOG.error(
            "cannot take {} off {} ({}): kubectl patch {} --type=merge -p"
                + " '{\"metadata\":{\"finalizers\":null}}' lets it go",
            Finalizers.UNINSTALL_GUARD,
            names.get(i),
            refused,
            names.get(i).toLowerCase(Locale.ROOT));
      }
    }
  }

  /** A merge patch of the finalizers, conditional on the version read (409 otherwise). */
  private static void patchFinalizers(
      Resource<? extends HasMetadata> resource, String version, List<String> finalizers) {
    ObjectNode patch = Serialization.jsonMapper().createObjectNode();
    ObjectNode meta = patch.putObject("metadata");
    meta.put("resourceVersion", version);
    if (finalizers.isEmpty()) {
      meta.putNull("finalizers");
    } else {
      finalizers.forEach(meta.putArray("finalizers")::add);
    }
    resource.patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }

  private static boolean carriesGuard(HasMetadata obj) {
    return obj.getMetadata().getFinalizers().contains(Finalizers.UNINSTALL_GUARD);
  }

  private static void sleep() {
    try {
      Thread.sleep(ROUND_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops watching. A release under way is waited for (bounded): the Pod of a controller being
   * uninstalled is told to stop in the same moment, and an exit halfway would leave jobs
   * Terminating.
   */
  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::close);
    worker.shutdown();
    if (uninstalling.get()) {
      try {
        worker.awaitTermination(RELEASE_WITHIN.toSeconds() + 5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
