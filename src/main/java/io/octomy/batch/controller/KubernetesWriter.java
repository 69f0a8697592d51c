package io.octomy.batch.controller;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.api.BatchJobProfileStatus;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.api.ResourceDrift;
import io.octomy.batch.controller.drift.DriftRecord;
import io.octomy.batch.controller.drift.FinishedRun;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.Times;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ClusterWriter} on a fabric8 client: status subresource updates, the controller's finalizer
 * on jobs, Pods, Events, profiles.
 */
public final class KubernetesWriter implements ClusterWriter {

  private static final Logger LOG = LoggerFactory.getLogger(KubernetesWriter.class);

  /** How long a raised Event count waits for its answer; an Event is a notice, not a record. */
  private static final long EVENT_WAIT_SECONDS = 10;

  private final KubernetesClient client;
  private final JobWriteRequests requests;
  private final Clock clock;
  private final RepeatedEvents series = new RepeatedEvents();
  private final CleanedUpRecordWriter records;

  public KubernetesWriter(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.requests = new JobWriteRequests(client);
    this.records = new CleanedUpRecordWriter(client);
  }

  @Override
  public Result writeStatus(BatchJob job, BatchJobStatus status) {
    BatchJob update = new BatchJob();
    update.setMetadata(new ObjectMeta());
    update.getMetadata().setName(job.getMetadata().getName());
    update.getMetadata().setNamespace(job.getMetadata().getNamespace());
    update.getMetadata().setResourceVersion(job.getMetadata().getResourceVersion());
    update.getMetadata().setUid(job.getMetadata().getUid());
    update.getMetadata().setGeneration(job.getMetadata().getGeneration());
    update.getMetadata().setCreationTimestamp(job.getMetadata().getCreationTimestamp());
    update.getMetadata().setLabels(job.getMetadata().getLabels());
    update.getMetadata().setAnnotations(job.getMetadata().getAnnotations());
    // The status subresource ignores spec; it is sent unchanged for servers that store the whole
    // body.
    update.setSpec(job.getSpec());
    update.setStatus(status);
    return requests.putStatus(update);
  }

  @Override
  public FinalizersWritten writeFinalizers(BatchJob job, List<String> finalizers) {
    // A merge patch that names the resourceVersion read is conditional on it (409 otherwise), on a
    // real API server as on the embedded one; null removes the list.
    ObjectNode patch = Serialization.jsonMapper().createObjectNode();
    ObjectNode meta = patch.putObject("metadata");
    meta.put("resourceVersion", job.getMetadata().getResourceVersion());
    if (finalizers.isEmpty()) {
      meta.putNull("finalizers");
    } else {
      finalizers.forEach(meta.putArray("finalizers")::add);
    }
    return requests.patchFinalizers(job, patch.toString());
  }

  @Override
  public Result writeNodeConditions(BatchNode node, List<Condition> conditions) {
    BatchNode update = client.getKubernetesSerialization().clone(node);
    update.getStatus().setConditions(conditions);
    return statusWrite(
        () -> client.resources(BatchNode.class).resource(update).updateStatus(),
        "node " + node.getMetadata().getName());
  }

  @Override
  public Result writeQueueStatus(BatchQueue queue, BatchQueueStatus status) {
    BatchQueue update = client.getKubernetesSerialization().clone(queue);
    update.setStatus(status);
    return statusWrite(
        () -> client.resources(BatchQueue.class).resource(update).updateStatus(),
        "queue " + queue.getMetadata().getName());
  }

  /**
   * Runs a conditional status write and says how it ended: 409 and 404 are answers, not failures.
   */
  private static Result statusWrite(Runnable write, String what) {
    try {
      write.run();
      return Result.WRITTEN;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return Result.CONFLICT;
      }
      if (e.getCode() == 404) {
        return Result.GONE;
      }
      LOG.warn("status write for {} failed: {}", what, e.getMessage());
      return Result.FAILED;
    }
  }

  @Override
  public ReadBack readJob(String namespace, String name) {
    try {
      BatchJob job = client.resources(BatchJob.class).inNamespace(namespace).withName(name).get();
      return job == null ? new ReadBack.Gone() : new ReadBack.Found(job);
    } catch (KubernetesClientException e) {
      return new ReadBack.NoAnswer(e.getMessage());
    }
  }

  @Override
  public boolean createPod(Pod pod) {
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return true; // created by an earlier pass or an earlier controller: the job is not started
        // twice
      }
      LOG.warn(
          "creating pod {}/{} failed: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      return false;
    }
  }

  @Override
  public boolean createJob(BatchJob item) {
    try {
      client
          .resources(BatchJob.class)
          .inNamespace(item.getMetadata().getNamespace())
          .resource(item)
          .create();
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return true; // sent by an earlier pass: the item is never made twice
      }
      LOG.warn(
          "creating array item {}/{} failed: {}",
          item.getMetadata().getNamespace(),
          item.getMetadata().getName(),
          e.getMessage());
      return false;
    }
  }

  @Override
  public Result deleteJob(BatchJob job) {
    return requests.deleteOnUid(job);
  }

  @Override
  public Map<String, String> readCleanedUp(String namespace) {
    return records.read(namespace);
  }

  @Override
  public Map<String, String> writeCleanedUp(
      String namespace, UnaryOperator<Map<String, String>> change) {
    return records.write(namespace, change);
  }

  @Override
  public boolean deletePod(Pod pod) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .delete();
      return true;
    } catch (KubernetesClientException e) {
      LOG.warn(
          "deleting pod {}/{} failed: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      return false;
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>An Event identical to one this writer recorded before (same job, type, reason and message)
   * raises that Event's count and last time with one merge patch instead of adding a second ({@link
   * RepeatedEvents}); if the server no longer holds it (Events expire), a new one is created.
   */
  @Override
  public void recordEvent(BatchJob job, JobEvent event, int count) {
    String now = Times.format(clock.instant());
    RepeatedEvents.Identical identical = RepeatedEvents.Identical.of(job, event);
    RepeatedEvents.Recorded before = series.last(identical);
    try {
      if (before != null) {
        int total = before.count() + count;
        if (raiseCount(job, before.eventName(), total, now)) {
          series.recorded(identical, new RepeatedEvents.Recorded(before.eventName(), total));
          return;
        }
        series.forget(identical);
      }
      String name = createEvent(job, event, count, now);
      series.recorded(identical, new RepeatedEvents.Recorded(name, count));
    } catch (KubernetesClientException e) {
      LOG.debug(
          "event {} on {} not recorded: {}",
          event.reason(),
          job.getMetadata().getName(),
          e.getMessage());
    }
  }

  /**
   * Raises a recorded Event's count with one merge patch (the client's own {@code patch} reads the
   * Event first); false when the server no longer holds it.
   */
  private boolean raiseCount(BatchJob job, String eventName, int count, String now) {
    ObjectNode patch = Serialization.jsonMapper().createObjectNode();
    patch.put("count", count);
    patch.put("lastTimestamp", now);
    String uri =
        JobWriteRequests.serverBase(client)
            + "/api/v1/namespaces/"
            + job.getMetadata().getNamespace()
            + "/events/"
            + eventName;
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(uri)
            .patch("application/merge-patch+json", patch.toString())
            .build();
    int code;
    try {
      code = http.sendAsync(request, byte[].class).get(EVENT_WAIT_SECONDS, TimeUnit.SECONDS).code();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException("no answer: " + e, e);
    }
    if (code == 404) {
      return false;
    }
    if (!HttpResponse.isSuccessful(code)) {
      throw new KubernetesClientException("answered " + code, code, null);
    }
    return true;
  }

  /** Creates a new Event; returns its name. */
  private String createEvent(BatchJob job, JobEvent event, int count, String now) {
    String name = job.getMetadata().getName();
    if (name.length() > 200) {
      name = name.substring(0, 200);
    }
    String eventName = name + "." + Long.toHexString(System.nanoTime());
    client
        .v1()
        .events()
        .inNamespace(job.getMetadata().getNamespace())
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withName(eventName)
                .withNamespace(job.getMetadata().getNamespace())
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(job.getApiVersion())
                .withKind(job.getKind())
                .withName(job.getMetadata().getName())
                .withNamespace(job.getMetadata().getNamespace())
                .withUid(job.getMetadata().getUid())
                .withResourceVersion(job.getMetadata().getResourceVersion())
                .endInvolvedObject()
                .withType(event.type())
                .withReason(event.reason())
                .withMessage(event.message())
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(count)
                .withNewSource()
                .withComponent(Labels.COMPONENT)
                .endSource()
                .withReportingComponent(Labels.COMPONENT)
                .build())
        .create();
    return eventName;
  }

  @Override
  public DriftFold foldDrift(String namespace, FinishedRun run, UnaryOperator<DriftRecord> fold) {
    var profiles = client.resources(BatchJobProfile.class).inNamespace(namespace);
    String answer = "";
    for (int attempt = 0; attempt < 5; attempt++) {
      boolean creating = false;
      try {
        BatchJobProfile p = profiles.withName(run.type()).get();
        if (p == null) {
          p = new BatchJobProfile();
          p.setMetadata(new ObjectMeta());
          p.getMetadata().setName(run.type());
          p.getMetadata().setNamespace(namespace);
          creating = true;
          p = profiles.resource(p).create();
          creating = false;
        }
        DriftRecord before = ProfileMapping.toRecord(p.getStatus());
        DriftRecord after = fold.apply(before);
        if (after.equals(before)) {
          return DriftFold.DONE; // already folded: idempotent across restarts
        }
        p.setStatus(ProfileMapping.toStatus(after));
        profiles.resource(p).updateStatus();
        return DriftFold.DONE;
      } catch (KubernetesClientException e) {
        answer = answered(e);
        // 409: changed since read; 404 on the status of a profile just read: deleted meanwhile.
        // Either way read (or create) it again.
        boolean again = e.getCode() == 409 || (e.getCode() == 404 && !creating);
        if (!again) {
          ClusterWriter.FoldOutcome outcome =
              refusesForGood(e.getCode(), creating)
                  ? ClusterWriter.FoldOutcome.REFUSED
                  : ClusterWriter.FoldOutcome.UNANSWERED;
          LOG.warn(
              "folding {} into profile {}/{} failed ({}): {}",
              run.jobUid(),
              namespace,
              run.type(),
              outcome,
              e.getMessage());
          return new DriftFold(outcome, answer);
        }
      }
    }
    return new DriftFold(
        ClusterWriter.FoldOutcome.UNANSWERED, "five conflicts in a row; " + answer);
  }

  /** "404 (the server could not find the requested resource)": the code and the server's words. */
  private static String answered(KubernetesClientException e) {
    String words =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    return e.getCode() == 0 ? "nothing (" + words + ")" : e.getCode() + " (" + words + ")";
  }

  /**
   * Answers that will not change on their own: the kind is not served (404 to a create), the
   * controller may not write it (401, 403), or the profile is invalid (400, 422).
   */
  private static boolean refusesForGood(int code, boolean creating) {
    return code == 400 || code == 401 || code == 403 || code == 422 || (code == 404 && creating);
  }

  /** Between the drift math's plain record and the profile's status type. */
  static final class ProfileMapping {
    private ProfileMapping() {}

    static DriftRecord toRecord(BatchJobProfileStatus s) {
      if (s == null) {
        return DriftRecord.empty();
      }
      Map<?, ?> m = Serialization.jsonMapper().convertValue(s, Map.class);
      return DriftRecord.fromMap(m);
    }

    static BatchJobProfileStatus toStatus(DriftRecord r) {
      BatchJobProfileStatus s =
          Serialization.jsonMapper().convertValue(r.toMap(), BatchJobProfileStatus.class);
      s.setWaste(
          s.getResources() == null
              ? null
              : s.getResources().values().stream()
                  .map(ResourceDrift::getWaste)
                  .filter(Objects::nonNull)
                  .max(Double::compare)
                  .orElse(null));
      return s;
    }
  }
}
