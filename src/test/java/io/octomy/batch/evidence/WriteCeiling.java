package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.controller.JobWriteRequests;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ServiceClass;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W_max: how many status writes per second the API server takes from one client at the controller's
 * write concurrency, with no admission logic in the way. Each write is the request the controller
 * sends for a decision: a PUT of the status subresource, conditional on the resourceVersion,
 * carrying a decided status of the usual size. Each thread owns its own jobs, so there are no
 * conflicts.
 */
final class WriteCeiling {

  /** {@code processorPerWrite}: this JVM's processor time per counted write (see below). */
  record Result(
      double writesPerSecond,
      long writes,
      long failures,
      Duration measured,
      String processorPerWrite) {}

  private WriteCeiling() {}

  static Result measure(
      KubernetesClient client,
      Workload w,
      String namespace,
      int jobs,
      int threads,
      Duration warmup,
      Duration measure)
      throws InterruptedException {
    List<BatchJob> made = new ArrayList<>(Collections.nCopies(jobs, null));
    Parallel.forEach(
        jobs,
        threads,
        i -> {
          BatchJob j = w.job(i);
          j.getMetadata().setNamespace(namespace);
          j.getSpec().setAfter(null);
          made.set(i, client.resources(BatchJob.class).inNamespace(namespace).resource(j).create());
        });
    AtomicBoolean counting = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      Thread th =
          new Thread(
              () -> {
                long n = 0;
                while (!stop.get()) {
                  for (int i = first; i < jobs && !stop.get(); i += threads) {
                    try {
                      String version = put(client, withStatus(made.get(i), n++));
                      made.get(i).getMetadata().setResourceVersion(version);
                      if (counting.get()) {
                        writes.incrementAndGet();
                      }
                    } catch (KubernetesClientException e) {
                      failures.incrementAndGet();
                      made.set(
                          i,
                          client
                              .resources(BatchJob.class)
                              .inNamespace(namespace)
                              .withName(made.get(i).getMetadata().getName())
                              .get());
                    }
                  }
                }
              },
              "wmax-" + t);
      ts.add(th);
      th.start();
    }
    Thread.sleep(warmup.toMillis());
    long t0 = System.nanoTime();
    // this JVM's processor time: the writers, and the server too when it is the embedded one
    JvmProcessorTime cpu0 = JvmProcessorTime.now();
    counting.set(true);
    Thread.sleep(measure.toMillis());
    counting.set(false);
    long elapsed = System.nanoTime() - t0;
    long n = writes.get();
    String perWrite = JvmProcessorTime.now().perOperationSince(cpu0, n);
    stop.set(true);
    for (Thread th : ts) {
      th.join();
    }
    // Gone again, so the controller never sees them: without the finalizer standalone's server put
    // on them at create (their statuses say Admitted, so the controller would hold them).
    Parallel.forEach(
        jobs,
        threads,
        i -> {
          var job =
              client
                  .resources(BatchJob.class)
                  .inNamespace(namespace)
                  .withName(made.get(i).getMetadata().getName());
          job.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
          job.delete();
        });
    return new Result(n / (elapsed / 1e9), n, failures.get(), Duration.ofNanos(elapsed), perWrite);
  }

  /**
   * PUTs the job to its status subresource as the controller does ({@code JobWriteRequests}: the
   * client's own HTTP client, the answer not bound to a BatchJob) and returns the version it made,
   * read from the answer with a streaming parser: the ceiling's client does no more per write than
   * the controller's, so that the ratio to it measures the controller and not a heavier client.
   */
  private static String put(KubernetesClient client, BatchJob update) {
    HttpClient http = client.getHttpClient();
    String url =
        client.getMasterUrl().toString().replaceFirst("/$", "")
            + "/apis/"
            + HasMetadata.getApiVersion(BatchJob.class)
            + "/namespaces/"
            + update.getMetadata().getNamespace()
            + "/batchjobs/"
            + update.getMetadata().getName()
            + "/status";
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(url)
            .put("application/json", client.getKubernetesSerialization().asJson(update))
            .build();
    try {
      HttpResponse<byte[]> answer = http.sendAsync(request, byte[].class).get(30, TimeUnit.SECONDS);
      String version =
          answer.isSuccessful() ? JobWriteRequests.resourceVersionOf(answer.body()) : null;
      if (version == null) {
        throw new KubernetesClientException("status write answered " + answer.code());
      }
      return version;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException("status write: " + e, e);
    }
  }

  /**
   * A decided status like the controller's (Admitted, conditions, times, message), different each
   * time.
   */
  private static BatchJob withStatus(BatchJob current, long n) {
    BatchJob u = new BatchJob();
    u.setMetadata(new ObjectMeta());
    u.getMetadata().setName(current.getMetadata().getName());
    u.getMetadata().setNamespace(current.getMetadata().getNamespace());
    u.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
    u.getMetadata().setUid(current.getMetadata().getUid());
    u.getMetadata().setGeneration(current.getMetadata().getGeneration());
    u.getMetadata().setCreationTimestamp(current.getMetadata().getCreationTimestamp());
    u.setSpec(current.getSpec());
    Instant now = Instant.now();
    BatchJobStatus s = new BatchJobStatus();
    s.setPhase(JobPhase.Admitted);
    s.setServiceClass(ServiceClass.Burstable);
    s.setNode("node-" + (n % 1000));
    s.setReason("Admitted");
    s.setMessage(
        "admitted to node-"
            + (n % 1000)
            + " (Drone): 4000 octomy.io/cpu-milli of 32000 free, write "
            + n);
    s.setEffectivePriority(100L);
    s.setQueuedAt(current.getMetadata().getCreationTimestamp());
    s.setAdmittedAt(Times.format(now));
    s.setObservedGeneration(1L);
    s.setConditions(
        Conditions.set(null, ConditionTypes.ADMITTED, true, "Admitted", s.getMessage(), 1L, now));
    u.setStatus(s);
    return u;
  }
}
