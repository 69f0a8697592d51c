package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * How close the expected start is to the real one: a trace replayed through standalone mode (jobs
 * of several types whose run times vary around a median, arriving at random over time, more than
 * the node runs at once), each job asked about with a fit review just before it is created (its
 * expected start at submission) and compared with when it was admitted.
 *
 * <p>First every type runs {@code --warmup} times, so its profile holds that many timed runs. Then
 * the trace: for each job a type and a run time are drawn ({@code sleep} of the median times a
 * factor in [1 - jitter, 1 + jitter]), a gap before it (exponential, mean {@code --gap-ms}); the
 * fit review is sent, the job created. Once every job has succeeded, per job: wait = admittedAt -
 * submission, error = expected start - admittedAt. Prints the median and p90 absolute error, the
 * median wait, and the median of |error| / wait over the jobs that waited at least 1 s.
 */
public final class StartAccuracyBenchmark {

  private static final String NS = "default";
  private static final String CPU = "octomy.io/cpu-milli";
  private static final String GV = "/apis/visibility.batch.octomy.io/v1alpha1";

  private final Args a;
  private final KubernetesClient client;
  private final String base;
  private final ObjectMapper json = new ObjectMapper();
  private final Random random;
  private final Map<String, Integer> medians = new LinkedHashMap<>();

  private StartAccuracyBenchmark(Args a, KubernetesClient client, String base) {
    this.a = a;
    this.client = client;
    this.base = base;
    this.random = new Random(a.integer("seed"));
    for (String t : a.string("types").split(",")) {
      String[] p = t.split(":");
      medians.put(p[0], Integer.parseInt(p[1]));
    }
  }

  public static void main(String[] argv) throws Exception {
    Args a =
        new Args(
            argv,
            Map.of(
                "types", "solve:6,mesh:10,render:16",
                "jitter-percent", "20",
                "warmup", "6",
                "jobs", "60",
                "gap-ms", "2500",
                "slots", "4",
                "seed", "42",
                "jvm", ""));
    System.out.println("start accuracy benchmark " + a);
    Path state = Files.createTempDirectory("octomy-accuracy");
    try (ChildJvm standalone =
        StandaloneChild.start(
            StandaloneChild.jvmOptions(a.string("jvm")),
            state,
            "standalone",
            CPU + "=" + 1000L * a.integer("slots"))) {
      Config config = StandaloneChild.config(standalone);
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        StandaloneChild.awaitNodeReady(client);
        String master = config.getMasterUrl().replaceAll("/$", "");
        new StartAccuracyBenchmark(a, client, master).run();
      }
    }
    StandaloneChild.deleteTree(state);
    System.exit(0);
  }

  private void run() throws Exception {
    int n = 0;
    for (String type : medians.keySet()) {
      for (int i = 0; i < a.integer("warmup"); i++) {
        create(manifest("warm-" + n++, type, runSeconds(type)));
      }
    }
    awaitAllSucceeded();
    for (String type : medians.keySet()) {
      awaitRuns(type, a.integer("warmup"));
    }
    System.out.println("warm-up done: " + n + " jobs, every type has its timed runs");

    List<String> names = new ArrayList<>();
    Map<String, String> types = new LinkedHashMap<>();
    Map<String, Instant> submitted = new LinkedHashMap<>();
    Map<String, Instant> expected = new LinkedHashMap<>();
    List<String> typeNames = new ArrayList<>(medians.keySet());
    for (int i = 0; i < a.integer("jobs"); i++) {
      Thread.sleep((long) (-Math.log(1 - random.nextDouble()) * a.integer("gap-ms")));
      String type = typeNames.get(random.nextInt(typeNames.size()));
      String name = "trace-" + i;
      types.put(name, type);
      Instant at = Instant.now();
      BatchJob job = manifest(name, type, runSeconds(type));
      JsonNode fit = fit(job).path("status");
      String start = fit.path("expectedStart").asText(null);
      if (!fit.path("admitted").asBoolean() && start == null) {
        throw new IllegalStateException(name + " has no expected start: " + fit);
      }
      expected.put(name, fit.path("admitted").asBoolean() ? at : Instant.parse(start));
      create(job);
      submitted.put(name, at);
      names.add(name);
    }
    awaitAllSucceeded();

    List<Double> absErrors = new ArrayList<>();
    List<Double> errors = new ArrayList<>();
    List<Double> waits = new ArrayList<>();
    List<Double> relative = new ArrayList<>();
    Map<String, List<Double>> relativeByType = new LinkedHashMap<>();
    Map<String, List<Double>> errorsByType = new LinkedHashMap<>();
    for (String name : names) {
      BatchJob job = client.resources(BatchJob.class).inNamespace(NS).withName(name).get();
      Instant admitted = Times.parse(job.getStatus().getAdmittedAt());
      double wait = Duration.between(submitted.get(name), admitted).toMillis() / 1000.0;
      double error = Duration.between(admitted, expected.get(name)).toMillis() / 1000.0;
      absErrors.add(Math.abs(error));
      errors.add(error);
      waits.add(wait);
      errorsByType.computeIfAbsent(types.get(name), t -> new ArrayList<>()).add(Math.abs(error));
      if (wait >= 1) {
        relative.add(Math.abs(error) / wait);
        relativeByType
            .computeIfAbsent(types.get(name), t -> new ArrayList<>())
            .add(Math.abs(error) / wait);
      }
    }
    System.out.printf("jobs %d, of which waited at least 1 s: %d%n", names.size(), relative.size());
    Percentiles w = percentiles(waits);
    Percentiles e = percentiles(absErrors);
    Percentiles r = percentiles(relative);
    System.out.printf("wait_s median %.1f p90 %.1f%n", w.p(50), w.p(90));
    System.out.printf("abs_error_s median %.1f p90 %.1f%n", e.p(50), e.p(90));
    Percentiles signed = percentiles(errors);
    System.out.printf(
        "error_s (expected - actual) p10 %.1f median %.1f p90 %.1f%n",
        signed.p(10), signed.p(50), signed.p(90));
    System.out.printf(
        "abs_error_over_wait median %.2f p90 %.2f (goal: median <= 0.20)%n", r.p(50), r.p(90));
    // Every type ran --warmup times before the trace, so each has at least that many timed runs.
    for (String type : medians.keySet()) {
      List<Double> typeErrors = errorsByType.getOrDefault(type, List.of());
      List<Double> rel = relativeByType.getOrDefault(type, List.of());
      if (typeErrors.isEmpty()) {
        continue;
      }
      Percentiles te = percentiles(typeErrors);
      System.out.printf(
          "type %s (median %d s, >= %d timed runs): %d jobs, abs_error_s median %.1f p90 %.1f,"
              + " abs_error_over_wait median %s over %d that waited at least 1 s%n",
          type,
          medians.get(type),
          a.integer("warmup"),
          typeErrors.size(),
          te.p(50),
          te.p(90),
          rel.isEmpty() ? "-" : String.format("%.2f", percentiles(rel).p(50)),
          rel.size());
    }
  }

  private static Percentiles percentiles(List<Double> values) {
    return new Percentiles(values.stream().mapToDouble(Double::doubleValue).toArray());
  }

  private int runSeconds(String type) {
    double jitter = a.integer("jitter-percent") / 100.0;
    double factor = 1 - jitter + 2 * jitter * random.nextDouble();
    return Math.max(1, (int) Math.round(medians.get(type) * factor));
  }

  /** A Guaranteed job of one slot that sleeps {@code seconds}. */
  private static BatchJob manifest(String name, String type, int seconds) {
    return ApiFixtures.aJob(name)
        .namespace(NS)
        .request(CPU, 1000)
        .limit(CPU, 1000)
        .type(type)
        .command("sleep", Integer.toString(seconds))
        .build();
  }

  private void create(BatchJob job) {
    client.resources(BatchJob.class).inNamespace(NS).resource(job).create();
  }

  private JsonNode fit(BatchJob job) throws Exception {
    ObjectNode review = json.createObjectNode();
    review.put("apiVersion", "visibility.batch.octomy.io/v1alpha1").put("kind", "FitReview");
    review.putObject("spec").set("job", json.valueToTree(job));
    HttpResponse<String> r =
        client
            .getHttpClient()
            .sendAsync(
                client
                    .getHttpClient()
                    .newHttpRequestBuilder()
                    .uri(base + GV + "/namespaces/" + NS + "/fitreviews")
                    .post("application/json", json.writeValueAsString(review))
                    .build(),
                String.class)
            .get(30, TimeUnit.SECONDS);
    if (!r.isSuccessful()) {
      throw new IllegalStateException("fit review answered " + r.code() + ": " + r.body());
    }
    return json.readTree(r.body().getBytes(StandardCharsets.UTF_8));
  }

  private void awaitAllSucceeded() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
    while (System.nanoTime() < deadline) {
      List<BatchJob> jobs = client.resources(BatchJob.class).inNamespace(NS).list().getItems();
      boolean done =
          jobs.stream()
              .allMatch(
                  j -> j.getStatus() != null && j.getStatus().getPhase() == JobPhase.Succeeded);
      if (done) {
        return;
      }
      jobs.stream()
          .filter(j -> j.getStatus() != null && j.getStatus().getPhase() == JobPhase.Failed)
          .findFirst()
          .ifPresent(
              j -> {
                throw new IllegalStateException(
                    j.getMetadata().getName() + " failed: " + j.getStatus().getMessage());
              });
      Thread.sleep(500);
    }
    throw new IllegalStateException("jobs did not all succeed within 30 minutes");
  }

  private void awaitRuns(String type, int runs) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      BatchJobProfile p =
          client.resources(BatchJobProfile.class).inNamespace(NS).withName(type).get();
      if (p != null
          && p.getStatus() != null
          && p.getStatus().getRunTime() != null
          && p.getStatus().getRunTime().getSamples() != null
          && p.getStatus().getRunTime().getSamples().size() >= runs) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("profile " + type + " did not record " + runs + " runs");
  }
}
