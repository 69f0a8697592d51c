package io.octomy.batch.controller.visibility;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.AssumedAdmissions;
import io.octomy.batch.controller.SnapshotBuilder;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The visibility API's routes and refusals, over a fixed controller state: who may see which
 * namespace (403 otherwise, and for the cluster-wide queue without the cluster-wide permission),
 * read-only verbs (405), bad fit reviews (400 saying what to send), jobs that do not wait (404
 * saying what they do), and 503 before the controller's first pass.
 */
class VisibilityApiTest {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final String GV = "visibility.batch.octomy.io/v1alpha1";

  private final ObjectMapper json = new ObjectMapper();
  private final List<BatchJob> jobs =
      List.of(
          aJob("holder")
              .namespace("a")
              .now(NOW)
              .cpu(3000)
              .locks("k")
              .placed("n1", JobPhase.Running)
              .build(),
          aJob("waiting").namespace("a").now(NOW).cpu(2000).build(),
          aJob("locked").namespace("a").now(NOW).cpu(100).locks("k").build(),
          aJob("theirs").namespace("b").now(NOW).cpu(2000).build());
  private boolean decided = true;

  /** The BatchQueues of the snapshot; none but in the cases that set them. */
  private List<QueueView> queues = List.of();

  private final VisibilitySource source =
      new VisibilitySource() {
        @Override
        public Optional<AdmissionLoop.LastPass> lastPass() {
          if (!decided) {
            return Optional.empty();
          }
          Snapshot s =
              new SnapshotBuilder()
                  .build(
                      jobs,
                      List.of(
                          aNode("n1").capacity("octomy.io/cpu-milli", 4000).heartbeat(NOW).build()),
                      new AssumedAdmissions(),
                      Policy.defaults(),
                      NOW);
          s = new Snapshot(s.jobs(), s.nodes(), s.policy(), s.now(), queues);
          return Optional.of(new AdmissionLoop.LastPass(s, AdmissionPass.decide(s)));
        }

        @Override
        public Collection<BatchJob> jobs() {
          return jobs;
        }

        @Override
        public Collection<BatchJobProfile> profiles() {
          return List.of();
        }
      };

  private final VisibilityApi api =
      new VisibilityApi(
          new VisibilityService(source, Clock.fixed(NOW, ZoneOffset.UTC), JobOutputs.NONE), json);

  private VisibilityApi.Answer get(String path, VisibilityApi.Access access) {
    return api.handle(new VisibilityApi.Call("GET", path, Map.of(), null, new byte[0]), access);
  }

  private JsonNode body(VisibilityApi.Answer a) throws IOException {
    return json.readTree(new String(a.body(), StandardCharsets.UTF_8));
  }

  private static List<String> names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.path("items").forEach(i -> names.add(i.path("metadata").path("name").asText()));
    return names;
  }

  private static final VisibilityApi.Access ONLY_A = ns -> "a".equals(ns);

  private static final VisibilityApi.Access ALL = ns -> true;

  private VisibilityApi.Answer getQueue(String path, String queue) {
    return api.handle(
        new VisibilityApi.Call("GET", path, Map.of("queue", queue), null, new byte[0]), ALL);
  }

  @Test
  void aQueueListsTheJobsOfItsSubtreeAndAnUnknownQueueIsSaidSo() throws IOException {
    queues =
        List.of(
            new QueueView("research", null, 1, Map.of(), Map.of(), List.of()),
            new QueueView("team-a", "research", 1, Map.of(), Map.of(), List.of("a")),
            new QueueView("team-b", null, 1, Map.of(), Map.of(), List.of("b")));
    assertThat(names(body(getQueue("/pendingjobs", "research"))))
        .as("a cohort lists the jobs of the queues below it")
        .containsExactly("locked", "waiting");
    assertThat(names(body(getQueue("/pendingjobs", "team-b")))).containsExactly("theirs");
    assertThat(names(body(getQueue("/namespaces/b/pendingjobs", "team-a")))).isEmpty();
    // why names the fair-share term with its numbers: research holds 0.75 of the pool, all of
    // the usage at the top (2^-2), and team-a all of research's (2^-1): 1000 / 8 = 125.
    JsonNode fairShare = body(get("/namespaces/a/pendingjobs/waiting", ALL)).path("fairShare");
    assertThat(fairShare.path("queue").asText()).isEqualTo("team-a");
    assertThat(fairShare.path("weight").asLong()).isEqualTo(1);
    assertThat(fairShare.path("share").asDouble()).isEqualTo(0.75);
    assertThat(fairShare.path("deserved").asDouble()).isEqualTo(0.5);
    assertThat(fairShare.path("term").asLong()).isEqualTo(125);
    assertThat(fairShare.path("most").asLong()).isEqualTo(1000);
    VisibilityApi.Answer unknown = getQueue("/pendingjobs", "team-c");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(body(unknown).path("message").asText())
        .isEqualTo(
            "there is no BatchQueue named team-c; kubectl get bq lists the queues there are.");
    VisibilityApi.Answer blank = getQueue("/pendingjobs", "");
    assertThat(blank.status()).isEqualTo(400);
    assertThat(body(blank).path("message").asText())
        .isEqualTo(
            "queue= needs the name of a BatchQueue, e.g. ?queue=team-a; kubectl get bq lists them.");
  }

  @Test
  void aUserSeesTheQueuesOfTheNamespacesTheyMayListAndIsRefusedTheOthers() throws IOException {
    VisibilityApi.Answer own = get("/namespaces/a/pendingjobs", ONLY_A);
    assertThat(own.status()).isEqualTo(200);
    assertThat(names(body(own))).containsExactly("locked", "waiting");
    VisibilityApi.Answer theirs = get("/namespaces/b/pendingjobs", ONLY_A);
    assertThat(theirs.status()).isEqualTo(403);
    assertThat(body(theirs).path("reason").asText()).isEqualTo("Forbidden");
    assertThat(body(theirs).path("message").asText())
        .isEqualTo(
            "you may not list batchjobs in namespace b, so you may not see its queue either.");
    assertThat(get("/namespaces/b/pendingjobs/theirs", ONLY_A).status()).isEqualTo(403);
    VisibilityApi.Answer everywhere = get("/pendingjobs", ONLY_A);
    assertThat(everywhere.status()).isEqualTo(403);
    assertThat(body(everywhere).path("message").asText())
        .isEqualTo(
            "the queue of every namespace needs permission to list batchjobs.batch.octomy.io in"
                + " all namespaces; ask for one namespace you may list: kubectl octomy queue -n"
                + " NAMESPACE.");
    assertThat(names(body(get("/pendingjobs", VisibilityApi.Access.EVERYTHING))))
        .containsExactlyInAnyOrder("waiting", "locked", "theirs");
  }

  @Test
  void whyListsEveryBlockerWithItsRemedy() throws IOException {
    JsonNode why = body(get("/namespaces/a/pendingjobs/locked", ONLY_A));
    assertThat(why.path("kind").asText()).isEqualTo("PendingJob");
    assertThat(why.path("apiVersion").asText()).isEqualTo(GV);
    assertThat(why.path("reason").asText()).isEqualTo("WaitingForLock");
    JsonNode first = why.path("blockers").get(0);
    assertThat(first.path("reason").asText()).isEqualTo("WaitingForLock");
    assertThat(first.path("message").asText()).contains("holder");
    assertThat(first.path("remedy").asText()).contains("holder");
  }

  @Test
  void aJobThatDoesNotWaitIsNotFoundSayingWhatItDoes() throws IOException {
    VisibilityApi.Answer running = get("/namespaces/a/pendingjobs/holder", ONLY_A);
    assertThat(running.status()).isEqualTo(404);
    assertThat(body(running).path("message").asText())
        .startsWith("batchjob holder is not waiting: it is Running on node n1");
    VisibilityApi.Answer missing = get("/namespaces/a/pendingjobs/nope", ONLY_A);
    assertThat(missing.status()).isEqualTo(404);
    assertThat(body(missing).path("message").asText())
        .isEqualTo("batchjob nope not found in namespace a: see kubectl get bj -n a.");
  }

  @Test
  void onlyReadingVerbsAreServed() throws IOException {
    VisibilityApi.Answer delete =
        api.handle(
            new VisibilityApi.Call(
                "DELETE", "/namespaces/a/pendingjobs/waiting", Map.of(), null, new byte[0]),
            ONLY_A);
    assertThat(delete.status()).isEqualTo(405);
    assertThat(body(delete).path("message").asText()).contains("read-only");
    assertThat(get("/namespaces/a/nothing", ONLY_A).status()).isEqualTo(404);
  }

  @Test
  void aFitReviewAnswersWithoutCreatingEvenForATakenNameAndABadOneSaysWhatToSend()
      throws IOException {
    String review =
        """
        {"apiVersion":"%s","kind":"FitReview","spec":{"job":{"apiVersion":"batch.octomy.io/v1alpha1",
         "kind":"BatchJob","metadata":{"name":"tiny"},
         "spec":{"resources":{"requests":{"octomy.io/cpu-milli":500}},
           "template":{"spec":{"containers":[{"name":"m","image":"x"}]}}}}}}
        """
            .formatted(GV);
    VisibilityApi.Answer fit = post("/namespaces/a/fitreviews", review);
    assertThat(fit.status()).isEqualTo(201);
    JsonNode status = body(fit).path("status");
    assertThat(status.path("admitted").asBoolean()).as(status.toString()).isTrue();
    assertThat(status.path("node").asText()).isEqualTo("n1");
    assertThat(jobs).extracting(j -> j.getMetadata().getName()).doesNotContain("tiny");

    VisibilityApi.Answer invalid =
        post(
            "/namespaces/a/fitreviews",
            review
                .replace("\"tiny\"", "\"odd\"")
                .replace("\"octomy.io/cpu-milli\":500", "\"cfd-cores\":1"));
    JsonNode rejected = body(invalid).path("status");
    assertThat(rejected.path("phase").asText()).as(rejected.toString()).isEqualTo("Rejected");
    assertThat(rejected.has("position")).as("never queued, so no place in the queue").isFalse();
    assertThat(rejected.has("effectivePriority")).isFalse();
    assertThat(rejected.path("blockers").get(0).path("message").asText()).contains("cfd-cores");

    VisibilityApi.Answer notAReview = post("/namespaces/a/fitreviews", "{\"kind\":\"Pod\"}");
    assertThat(notAReview.status()).isEqualTo(400);
    assertThat(body(notAReview).path("message").asText())
        .isEqualTo("send a FitReview of apiVersion " + GV + " whose spec.job is a BatchJob.");
    VisibilityApi.Answer notJson = post("/namespaces/a/fitreviews", "kind: FitReview");
    assertThat(notJson.status()).isEqualTo(400);
    VisibilityApi.Answer taken =
        post("/namespaces/a/fitreviews", review.replace("\"tiny\"", "\"waiting\""));
    assertThat(taken.status())
        .as("a name that exists is decided as a new submission beside it, as sbatch --test-only")
        .isEqualTo(201);
    JsonNode besideIt = body(taken).path("status");
    assertThat(besideIt.path("admitted").asBoolean()).as(besideIt.toString()).isTrue();
    assertThat(besideIt.path("node").asText()).isEqualTo("n1");
    assertThat(jobs).extracting(j -> j.getMetadata().getName()).containsOnlyOnce("waiting");
  }

  @Test
  void beforeTheFirstPassItSaysToAskAgain() throws IOException {
    decided = false;
    VisibilityApi.Answer a = get("/namespaces/a/pendingjobs", ONLY_A);
    assertThat(a.status()).isEqualTo(503);
    assertThat(body(a).path("message").asText()).contains("ask again in a few seconds");
  }

  @Test
  void logsOfAJobWhoseOutputIsNotOnThisMachineSayWhereToLook() throws IOException {
    VisibilityApi.Answer a = get("/namespaces/a/joblogs/holder", ONLY_A);
    assertThat(a.status()).isEqualTo(404);
    assertThat(body(a).path("message").asText())
        .contains("kept on node n1")
        .contains("kubectl logs -n a holder");
    VisibilityApi.Answer waiting = get("/namespaces/a/joblogs/waiting", ONLY_A);
    assertThat(body(waiting).path("message").asText()).contains("has not started yet");
  }

  @Test
  void aPercentEncodedNameIsOneSegmentDecodedNotAQuery() throws IOException {
    VisibilityApi.Answer a = get("/namespaces/a/joblogs/job%3FlimitBytes%3D5", ONLY_A);
    assertThat(a.status()).isEqualTo(404);
    assertThat(body(a).path("message").asText()).startsWith("batchjob job?limitBytes=5 not found");
    VisibilityApi.Answer bad = get("/namespaces/a/joblogs/job%zz", ONLY_A);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(body(bad).path("message").asText()).contains("is not percent-encoded properly");
  }

  @Test
  void logOptionsOutOfRangeAreRefusedWithWhatToWrite() throws IOException {
    VisibilityApi.Answer negativeTail = holdersLog(Map.of("tailLines", "-5"));
    assertThat(negativeTail.status()).isEqualTo(400);
    assertThat(body(negativeTail).path("message").asText())
        .isEqualTo(
            "tailLines: Invalid value: -5: must be greater than or equal to 0; leave it out for"
                + " every line.");
    VisibilityApi.Answer noBytes = holdersLog(Map.of("limitBytes", "0"));
    assertThat(noBytes.status()).isEqualTo(400);
    assertThat(body(noBytes).path("message").asText()).startsWith("limitBytes: Invalid value: 0:");
  }

  private VisibilityApi.Answer holdersLog(Map<String, String> query) {
    return api.handle(
        new VisibilityApi.Call("GET", "/namespaces/a/joblogs/holder", query, null, new byte[0]),
        ONLY_A);
  }

  @Test
  void kubectlGetReceivesATable() throws IOException {
    VisibilityApi.Answer a =
        api.handle(
            new VisibilityApi.Call(
                "GET",
                "/namespaces/a/pendingjobs",
                Map.of(),
                "application/json;as=Table;v=v1;g=meta.k8s.io",
                new byte[0]),
            ONLY_A);
    JsonNode table = body(a);
    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("rows")).hasSize(2);
    assertThat(table.path("rows").get(0).path("cells").get(0).asText()).isEqualTo("locked");
    assertThat(table.path("columnDefinitions")).hasSize(8);
    JsonNode cells = table.path("rows").get(0).path("cells");
    assertThat(cells.get(5).asText())
        .as("the span of the basis beside it, as of the same moment")
        .isEqualTo("in 10m");
    assertThat(cells.get(7).asText()).contains("(in 10m)");
  }

  private VisibilityApi.Answer post(String path, String body) {
    return api.handle(
        new VisibilityApi.Call("POST", path, Map.of(), null, body.getBytes(StandardCharsets.UTF_8)),
        ONLY_A);
  }
}
