package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.controller.ClusterWriter.FinalizersWritten;
import io.octomy.batch.controller.ClusterWriter.Result;
import io.octomy.batch.fixtures.SentRequests;
import io.octomy.batch.standalone.StandaloneRuntime;
import io.octomy.batch.vocabulary.Finalizers;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's status and finalizer writes against the embedded API server, each answered in
 * one request: written (with the version it made), refused on a stale version, the job gone, or
 * refused by the schema.
 */
class KubernetesWriterIT {

  private static final String JOBS = "/apis/batch.octomy.io/v1alpha1/namespaces/default/batchjobs/";

  @TempDir Path dir;
  private EmbeddedApiServer server;
  private KubernetesClient client;
  private final SentRequests requests = new SentRequests();
  private KubernetesWriter writer;

  @BeforeEach
  void start() {
    server = EmbeddedApiServer.start(dir, 0, StandaloneRuntime.productCrds());
    client = requests.client(server.clientConfig());
    writer = new KubernetesWriter(client, Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private BatchJob created(String name) {
    BatchJob job = client.resource(aJob(name).cpu(1000).build()).create();
    requests.clear();
    return job;
  }

  /** Changes the job on the server, so that the version {@code job} holds is stale. */
  private void changedSince(BatchJob job) {
    client
        .resources(BatchJob.class)
        .withName(job.getMetadata().getName())
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}");
    requests.clear();
  }

  @Test
  void theFinalizerIsWrittenInOnePatch() {
    BatchJob job = created("a");

    FinalizersWritten written = writer.writeFinalizers(job, ReservationFinalizer.added(job));

    assertThat(written.result()).isEqualTo(Result.WRITTEN);
    assertThat(requests.sent()).containsExactly("PATCH " + JOBS + "a");
    BatchJob now = client.resources(BatchJob.class).withName("a").get();
    assertThat(now.getMetadata().getFinalizers()).containsExactly(Finalizers.RESERVATION);
    assertThat(written.resourceVersion()).isEqualTo(now.getMetadata().getResourceVersion());
  }

  @Test
  void aWriteOnAStaleVersionIsRefusedInOnePatch() {
    BatchJob job = created("b");
    changedSince(job);

    FinalizersWritten written = writer.writeFinalizers(job, ReservationFinalizer.added(job));

    assertThat(written.result()).isEqualTo(Result.CONFLICT);
    assertThat(requests.sent()).containsExactly("PATCH " + JOBS + "b");
    assertThat(client.resources(BatchJob.class).withName("b").get().getMetadata().getFinalizers())
        .isNullOrEmpty();
  }

  @Test
  void aJobGoneIsToldInOnePatch() {
    BatchJob job = created("c");
    client.resources(BatchJob.class).withName("c").delete();
    requests.clear();

    FinalizersWritten written = writer.writeFinalizers(job, ReservationFinalizer.added(job));

    assertThat(written.result()).isEqualTo(Result.GONE);
    assertThat(requests.sent()).containsExactly("PATCH " + JOBS + "c");
  }

  private static BatchJobStatus waitingForCapacity() {
    BatchJobStatus status = new BatchJobStatus();
    status.setPhase(JobPhase.Queued);
    status.setReason("WaitingForCapacity");
    status.setMessage("waiting for capacity: need 1000 octomy.io/cpu-milli.");
    return status;
  }

  @Test
  void aStatusIsWrittenInOnePut() {
    BatchJob job = created("s1");

    Result result = writer.writeStatus(job, waitingForCapacity());

    assertThat(result).isEqualTo(Result.WRITTEN);
    assertThat(requests.sent()).containsExactly("PUT " + JOBS + "s1/status");
    BatchJob now = client.resources(BatchJob.class).withName("s1").get();
    assertThat(now.getStatus().getReason()).isEqualTo("WaitingForCapacity");
    assertThat(now.getStatus().getMessage()).startsWith("waiting for capacity");
    assertThat(now.getMetadata().getResourceVersion())
        .isNotEqualTo(job.getMetadata().getResourceVersion());
  }

  @Test
  void aStatusOnAStaleVersionIsRefusedInOnePut() {
    BatchJob job = created("s2");
    changedSince(job);

    Result result = writer.writeStatus(job, waitingForCapacity());

    assertThat(result).isEqualTo(Result.CONFLICT);
    assertThat(requests.sent()).containsExactly("PUT " + JOBS + "s2/status");
    assertThat(client.resources(BatchJob.class).withName("s2").get().getStatus()).isNull();
  }

  @Test
  void aStatusForAJobGoneIsToldInOnePut() {
    BatchJob job = created("s3");
    client.resources(BatchJob.class).withName("s3").delete();
    requests.clear();

    Result result = writer.writeStatus(job, waitingForCapacity());

    assertThat(result).isEqualTo(Result.GONE);
    assertThat(requests.sent()).containsExactly("PUT " + JOBS + "s3/status");
  }

  @Test
  void aStatusTheSchemaRefusesIsAFailureNotAnAnswer() {
    BatchJob job = created("s4");
    BatchJobStatus status = waitingForCapacity();
    AdmissionRecord admission = new AdmissionRecord();
    admission.setGroup("g".repeat(64)); // the schema's maxLength is 63: answered 422
    status.setAdmission(admission);

    Result result = writer.writeStatus(job, status);

    assertThat(result).isEqualTo(Result.FAILED);
    assertThat(requests.sent()).containsExactly("PUT " + JOBS + "s4/status");
    assertThat(client.resources(BatchJob.class).withName("s4").get().getStatus()).isNull();
  }

  private static final String EVENTS = "/api/v1/namespaces/default/events";

  private List<Event> eventsOn(String job) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> job.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  @Test
  void anEventIdenticalToOneRecordedRaisesItsCount() {
    BatchJob job = created("e1");
    JobEvent rejected = JobEvent.warning("Rejected", "e1 and e2 wait for each other");

    writer.recordEvent(job, rejected, 1);
    assertThat(requests.sent()).containsExactly("POST " + EVENTS);
    Event first = eventsOn("e1").get(0);
    requests.clear();
    writer.recordEvent(job, rejected, 1);
    writer.recordEvent(job, rejected, 2);
    List<String> sent = requests.sent();

    List<Event> events = eventsOn("e1");
    assertThat(events).hasSize(1);
    Event event = events.get(0);
    assertThat(event.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
    assertThat(event.getCount()).isEqualTo(4);
    assertThat(event.getFirstTimestamp()).isEqualTo(first.getFirstTimestamp());
    assertThat(event.getMessage()).isEqualTo("e1 and e2 wait for each other");
    String named = EVENTS + "/" + first.getMetadata().getName();
    assertThat(sent).containsExactly("PATCH " + named, "PATCH " + named);
  }

  @Test
  void anEventWithOtherWordsOrOnAnotherJobIsANewEvent() {
    BatchJob a = created("e2");
    BatchJob b = created("e3");

    writer.recordEvent(a, JobEvent.normal("Admitted", "admitted on n1"), 1);
    writer.recordEvent(a, JobEvent.normal("Admitted", "admitted on n2"), 1);
    writer.recordEvent(b, JobEvent.normal("Admitted", "admitted on n1"), 1);

    assertThat(eventsOn("e2")).extracting(Event::getCount).containsExactly(1, 1);
    assertThat(eventsOn("e3")).extracting(Event::getCount).containsExactly(1);
  }

  @Test
  void aRepeatOfAnEventTheServerNoLongerHoldsIsRecordedAfresh() {
    BatchJob job = created("e4");
    JobEvent failed = JobEvent.warning("Failed", "exit code 1");
    writer.recordEvent(job, failed, 1);
    client.v1().events().inNamespace("default").delete(); // as if it had expired

    writer.recordEvent(job, failed, 1);
    writer.recordEvent(job, failed, 1);

    assertThat(eventsOn("e4")).extracting(Event::getCount).containsExactly(2);
  }
}
