package io.octomy.batch.controller.visibility;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.output.JobOutputText;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The read-only API {@code visibility.batch.octomy.io/v1alpha1}, apart from the HTTP server that
 * carries it (the controller's aggregated API server on a cluster, the embedded server in
 * standalone mode). Paths, relative to {@code /apis/visibility.batch.octomy.io/v1alpha1}:
 *
 * <ul>
 *   <li>{@code GET /pendingjobs}, {@code GET /namespaces/NS/pendingjobs}: the queue in the order
 *       the next pass takes it ({@code PendingJobList}); {@code ?queue=NAME} keeps the jobs of
 *       BatchQueue NAME and of the queues below it (404 when there is none of that name), {@code
 *       ?expectedNode=A,B} those expected to start on nodes A or B; {@code limit} and {@code
 *       continue} page it as a Kubernetes list is paged, every page from one forecast; {@code
 *       resourceVersion=0} takes the newest forecast done at once, however old, rather than waiting
 *       for the last pass's; the list's {@code metadata.resourceVersion} names the pass whose
 *       forecast it is, and {@code forecast.passTime} and {@code forecast.ofLastPass} say when that
 *       pass decided and whether it is the last one;
 *   <li>{@code GET /namespaces/NS/pendingjobs/NAME}: one Queued job with every blocker and its
 *       remedy ({@code PendingJob});
 *   <li>{@code POST /namespaces/NS/fitreviews}: what a BatchJob manifest would get now, nothing
 *       created ({@code FitReview}, its {@code spec.job} the manifest);
 *   <li>{@code GET /namespaces/NS/joblogs/NAME[?tailLines=N&limitBytes=N]}: a job's output as text,
 *       from this machine or from the agent of the node that keeps it; as a Pod's log, {@code
 *       tailLines} picks the last lines and {@code limitBytes} keeps at most so many bytes from the
 *       start of those (an output over 16 MiB is its last 16 MiB).
 * </ul>
 *
 * Every answer is computed when asked, but the queue's forecast once per controller pass (shared by
 * its readers, {@link PassForecasts}); nothing is written. Access is checked per namespace by the
 * caller's {@link Access}: who may list BatchJobs in a namespace may see its queue.
 */
public final class VisibilityApi {

  public static final String GROUP = "visibility.batch.octomy.io";
  public static final String VERSION = "v1alpha1";
  public static final String GROUP_VERSION = GROUP + "/" + VERSION;

  /** What the caller may see. */
  public interface Access {
    /** Whether the caller may list BatchJobs in the namespace (null: in every namespace). */
    boolean mayList(String namespace);

    /** Anyone may see everything (standalone mode: one user, one token). */
    Access EVERYTHING = namespace -> true;
  }

  /**
   * One request.
   *
   * @param path relative to {@code /apis/visibility.batch.octomy.io/v1alpha1} ({@code ""} for the
   *     group version itself)
   * @param accept the Accept header ({@code as=Table} gets a Table for kubectl get)
   */
  public record Call(
      String method, String path, Map<String, String> query, String accept, byte[] body) {}

  /** The answer. */
  public record Answer(int status, String contentType, byte[] body) {}

  private static final String JSON = "application/json";

  private final VisibilityService service;
  private final ObjectMapper json;
  private final VisibilityJson render;
  private final AgentOutputs agents;

  /** Reading job output on this machine only. */
  public VisibilityApi(VisibilityService service, ObjectMapper json) {
    this(service, json, AgentOutputs.NONE);
  }

  /**
   * @param agents reads a job's output from its node's agent when it is not on this machine
   */
  public VisibilityApi(VisibilityService service, ObjectMapper json, AgentOutputs agents) {
    this.service = service;
    this.json = json;
    this.render = new VisibilityJson(json);
    this.agents = agents;
  }

  public Answer handle(Call call, Access access) {
    try {
      return route(call, access);
    } catch (VisibilityException e) {
      return status(e.code(), e.reason(), e.getMessage());
    }
  }

  private Answer route(Call call, Access access) {
    String path =
        call.path().endsWith("/")
            ? call.path().substring(0, call.path().length() - 1)
            : call.path();
    String[] p = path.isEmpty() ? new String[0] : path.substring(1).split("/");
    for (int i = 0; i < p.length; i++) {
      p[i] = decoded(p[i]);
    }
    if (p.length == 0) {
      return ok(render.resourceList());
    }
    if (p.length == 1 && p[0].equals("pendingjobs")) {
      return queue(call, access, null);
    }
    if (p.length < 3 || !p[0].equals("namespaces")) {
      throw notFound();
    }
    String ns = p[1];
    if (!access.mayList(ns)) {
      throw VisibilityException.forbidden(
          "you may not list batchjobs in namespace "
              + ns
              + ", so you may not see its queue either.");
    }
    String resource = p[2];
    if (p.length == 3 && resource.equals("pendingjobs")) {
      return queue(call, access, ns);
    }
    if (p.length == 4 && resource.equals("pendingjobs")) {
      expect(call, "GET");
      JobKey key = new JobKey(ns, p[3]);
      return table(call)
          ? ok(render.table(List.of(service.why(key).job())))
          : ok(render.pendingJob(service.why(key)));
    }
    if (p.length == 3 && resource.equals("fitreviews")) {
      expect(call, "POST");
      ObjectNode review = parse(call.body());
      BatchJob manifest = manifest(review);
      return new Answer(201, JSON, bytes(render.fitReview(review, service.fit(ns, manifest))));
    }
    if (p.length == 4 && resource.equals("joblogs")) {
      expect(call, "GET");
      return log(new JobKey(ns, p[3]), call);
    }
    throw notFound();
  }

  /** A path segment as it was before a client percent-encoded it ('+' stays a '+' in a path). */
  private static String decoded(String segment) {
    try {
      return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw VisibilityException.badRequest(
          "the path segment " + segment + " is not percent-encoded properly (%XX, X hexadecimal).");
    }
  }

  private Answer queue(Call call, Access access, String namespace) {
    expect(call, "GET");
    if (namespace == null && !access.mayList(null)) {
      // As Kueue's visibility API: the cluster-wide view needs the cluster-wide permission, rather
      // than one access review per namespace on every call.
      throw VisibilityException.forbidden(
          "the queue of every namespace needs permission to list batchjobs.batch.octomy.io in all"
              + " namespaces; ask for one namespace you may list: kubectl octomy queue -n NAMESPACE.");
    }
    String queueName = call.query().get("queue");
    if (queueName != null && queueName.isBlank()) {
      throw VisibilityException.badRequest(
          "queue= needs the name of a BatchQueue, e.g. ?queue=team-a; kubectl get bq lists them.");
    }
    PendingJobsRead.JobsKept filter =
        new PendingJobsRead.JobsKept(namespace, queueName, expectedNodes(call));
    Long limit = number(call, "limit");
    if (limit != null && limit < 0) {
      throw VisibilityException.badRequest(
          "limit: Invalid value: " + limit + ": must be 0 or more; leave it out for every job.");
    }
    String token = call.query().get("continue");
    PassForecasts.KeptForecast forecast;
    long from = 0;
    if (token != null && !token.isEmpty()) {
      PendingJobsRead.ContinueToken c = PendingJobsRead.ContinueToken.parse(token);
      from = c.from();
      forecast =
          service
              .forecast(c.generation())
              .orElseThrow(
                  () ->
                      new VisibilityException(
                          410,
                          "Expired",
                          "the forecast this continue token is of is no longer kept (the queue"
                              + " moved on): list again without continue."));
    } else {
      forecast = service.forecast(recentEnough(call));
    }
    PendingJobsRead page = PendingJobsRead.page(forecast, filter, from, limit == null ? 0 : limit);
    ObjectNode doc =
        table(call)
            ? render.table(page.jobs())
            : render.pendingJobList(
                page.jobs(), forecast.pass().snapshot().now(), service.ofLastPass(forecast));
    if (page.next() != null) {
      ((ObjectNode) doc.get("metadata"))
          .put("continue", page.next())
          .put("remainingItemCount", page.remaining());
    }
    return ok(doc);
  }

  /**
   * {@code resourceVersion=0}, as on a Kubernetes list: any answer will do, so the newest forecast
   * done is given at once rather than the last pass's awaited (its pass said in the answer);
   * absent, the last pass's.
   */
  private static boolean recentEnough(Call call) {
    String rv = call.query().get("resourceVersion");
    if (rv == null || rv.isEmpty()) {
      return false;
    }
    if (!rv.equals("0")) {
      throw VisibilityException.badRequest(
          "resourceVersion: Invalid value: \""
              + rv
              + "\": the queue is served as of the last pass (leave it out) or as of a recent one"
              + " (0).");
    }
    return true;
  }

  /** {@code expectedNode=a,b}: only the jobs expected to start on those nodes. */
  private static Set<String> expectedNodes(Call call) {
    String nodes = call.query().get("expectedNode");
    if (nodes == null) {
      return null;
    }
    Set<String> names = new HashSet<>();
    for (String n : nodes.split(",")) {
      if (!n.isBlank()) {
        names.add(n.strip());
      }
    }
    if (names.isEmpty()) {
      throw VisibilityException.badRequest(
          "expectedNode= needs node names separated by commas, e.g. ?expectedNode=node-1,node-2.");
    }
    return names;
  }

  /**
   * Discovery above the group version, for a server that serves this group alone: {@code /apis}
   * ({@code APIGroupList}) and {@code /apis/visibility.batch.octomy.io} ({@code APIGroup}).
   *
   * @param groupList true for {@code /apis}
   */
  public Answer groupDiscovery(boolean groupList) {
    return ok(groupList ? render.apiGroupList() : render.apiGroup());
  }

  /** An error answered as a {@code Status}, as the API answers its own. */
  public Answer failure(int code, String reason, String message) {
    return status(code, reason, message);
  }

  private Answer log(JobKey key, Call call) {
    Long tailLines = number(call, "tailLines");
    Long limitBytes = number(call, "limitBytes");
    // as the API's own PodLogOptions refuses them
    if (tailLines != null && tailLines < 0) {
      throw VisibilityException.badRequest(
          "tailLines: Invalid value: "
              + tailLines
              + ": must be greater than or equal to 0; leave it out for every line.");
    }
    if (limitBytes != null && limitBytes < 1) {
      throw VisibilityException.badRequest(
          "limitBytes: Invalid value: "
              + limitBytes
              + ": must be greater than 0; leave it out for all the output (up to 16 MiB).");
    }
    Long run = number(call, "run");
    if (run != null && (run < 1 || run > Integer.MAX_VALUE)) {
      throw VisibilityException.badRequest(
          "run: Invalid value: "
              + run
              + ": runs are numbered from 1; leave it out for the current or last run.");
    }
    Long replica = number(call, "replica");
    if (replica != null && (replica < 0 || replica >= BatchJobSpec.MAX_REPLICAS)) {
      throw VisibilityException.badRequest(
          "replica: Invalid value: "
              + replica
              + ": a gang's replicas are numbered from 0; leave it out for replica 0.");
    }
    VisibilityService.JobOutput out =
        service.output(
            key, run == null ? null : run.intValue(), replica == null ? null : replica.intValue());
    if (out.file() == null) {
      return new Answer(
          200,
          "text/plain; charset=utf-8",
          agents.read(out.node(), out.run(), tailLines, limitBytes));
    }
    try {
      byte[] text = JobOutputText.read(out.file(), tailLines, limitBytes);
      return new Answer(200, "text/plain; charset=utf-8", text);
    } catch (NoSuchFileException e) {
      throw VisibilityException.notFound(
          "batchjob " + key.name() + " has written no output yet (" + out.file() + ").");
    } catch (JobOutputText.Unreadable e) {
      throw new VisibilityException(
          e.timedOut() ? 504 : 500,
          e.timedOut() ? "Timeout" : "InternalError",
          "the output of batchjob " + key.name() + " cannot be read: " + e.getMessage());
    } catch (IOException e) {
      throw new VisibilityException(
          500, "InternalError", "cannot read " + out.file() + ": " + e.getMessage());
    }
  }

  private static Long number(Call call, String name) {
    String v = call.query().get(name);
    if (v == null) {
      return null;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw VisibilityException.badRequest(name + " must be a whole number, not " + v + ".");
    }
  }

  private BatchJob manifest(ObjectNode review) {
    if (!"FitReview".equals(review.path("kind").asText())
        || !GROUP_VERSION.equals(review.path("apiVersion").asText())) {
      throw VisibilityException.badRequest(
          "send a FitReview of apiVersion " + GROUP_VERSION + " whose spec.job is a BatchJob.");
    }
    JsonNode job = review.path("spec").path("job");
    if (!job.isObject() || !"BatchJob".equals(job.path("kind").asText())) {
      throw VisibilityException.badRequest(
          "spec.job must be a BatchJob manifest (kind: BatchJob), as you would kubectl apply it.");
    }
    try {
      return json.treeToValue(job, BatchJob.class);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw VisibilityException.badRequest("spec.job is not a BatchJob: " + e.getMessage());
    }
  }

  private ObjectNode parse(byte[] body) {
    try {
      JsonNode node = json.readTree(body);
      if (node instanceof ObjectNode o) {
        return o;
      }
    } catch (IOException e) {
      // answered below
    }
    throw VisibilityException.badRequest("the body must be a JSON object (a FitReview).");
  }

  private static boolean table(Call call) {
    return call.accept() != null && call.accept().contains("as=Table");
  }

  private static void expect(Call call, String method) {
    if (!call.method().equals(method)) {
      throw new VisibilityException(
          405, "MethodNotAllowed", "only " + method + " is served here (the API is read-only).");
    }
  }

  private static VisibilityException notFound() {
    return VisibilityException.notFound("the server could not find the requested resource");
  }

  private Answer ok(JsonNode body) {
    return new Answer(200, JSON, bytes(body));
  }

  private Answer status(int code, String reason, String message) {
    return new Answer(code, JSON, bytes(render.status(code, reason, message)));
  }

  private byte[] bytes(JsonNode node) {
    try {
      return json.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
