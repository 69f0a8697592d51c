package io.octomy.batch.controller.visibility;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.octomy.batch.admission.FairShareTerm;
import io.octomy.batch.visibility.Blocker;
import io.octomy.batch.visibility.Explanation;
import io.octomy.batch.visibility.FitAnswer;
import io.octomy.batch.visibility.QueuedJob;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The objects of {@code visibility.batch.octomy.io/v1alpha1} as JSON: {@code PendingJob} and its
 * list, {@code FitReview}, the discovery document, Tables for kubectl get, and {@code Status}.
 */
final class VisibilityJson {

  private final ObjectMapper json;

  VisibilityJson(ObjectMapper json) {
    this.json = json;
  }

  /** The discovery document of the group version. */
  ObjectNode resourceList() {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "APIResourceList")
        .put("apiVersion", "v1")
        .put("groupVersion", VisibilityApi.GROUP_VERSION);
    ArrayNode resources = doc.putArray("resources");
    resource(resources, "pendingjobs", "PendingJob", "get", "list");
    resource(resources, "fitreviews", "FitReview", "create");
    resource(resources, "joblogs", "JobLog", "get");
    return doc;
  }

  /** {@code /apis/visibility.batch.octomy.io}: the group with its one version. */
  ObjectNode apiGroup() {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "APIGroup").put("apiVersion", "v1");
    groupFields(doc);
    return doc;
  }

  /** {@code /apis} of a server that serves this group only. */
  ObjectNode apiGroupList() {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "APIGroupList").put("apiVersion", "v1");
    groupFields(doc.putArray("groups").addObject());
    return doc;
  }

  private static void groupFields(ObjectNode group) {
    group.put("name", VisibilityApi.GROUP);
    group
        .putArray("versions")
        .addObject()
        .put("groupVersion", VisibilityApi.GROUP_VERSION)
        .put("version", VisibilityApi.VERSION);
    group
        .putObject("preferredVersion")
        .put("groupVersion", VisibilityApi.GROUP_VERSION)
        .put("version", VisibilityApi.VERSION);
  }

  private static void resource(ArrayNode list, String name, String kind, String... verbs) {
    ObjectNode r = list.addObject();
    r.put("name", name)
        .put("singularName", name.substring(0, name.length() - 1))
        .put("namespaced", true)
        .put("kind", kind);
    ArrayNode v = r.putArray("verbs");
    for (String verb : verbs) {
      v.add(verb);
    }
  }

  /**
   * A list out of the forecast of one pass: its {@code metadata.resourceVersion} names that pass,
   * and {@code forecast} says when it decided and whether it is the last one (an older forecast is
   * given at once to a reader who asked for any recent one while the last pass's is computed).
   */
  ObjectNode pendingJobList(List<QueuedJob> queue, Instant passTime, boolean ofLastPass) {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "PendingJobList").put("apiVersion", VisibilityApi.GROUP_VERSION);
    doc.putObject("metadata").put("resourceVersion", Long.toString(passTime.toEpochMilli()));
    doc.putObject("forecast")
        .put("passTime", passTime.truncatedTo(ChronoUnit.MILLIS).toString())
        .put("ofLastPass", ofLastPass);
    ArrayNode items = doc.putArray("items");
    queue.forEach(q -> items.add(pendingJob(q)));
    return doc;
  }

  ObjectNode pendingJob(Explanation why) {
    ObjectNode doc = pendingJob(why.job());
    if (why.fairShare() != null) {
      FairShareTerm f = why.fairShare();
      doc.putObject("fairShare")
          .put("queue", f.queue())
          .put("weight", f.weight())
          .put("share", Math.round(f.share() * 1000) / 1000.0)
          .put("deserved", Math.round(f.deserved() * 1000) / 1000.0)
          .put("term", f.term())
          .put("most", f.most());
    }
    blockers(doc, why.blockers());
    return doc;
  }

  private ObjectNode pendingJob(QueuedJob q) {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "PendingJob").put("apiVersion", VisibilityApi.GROUP_VERSION);
    doc.putObject("metadata").put("name", q.name()).put("namespace", q.namespace());
    fields(doc, q);
    return doc;
  }

  private static void fields(ObjectNode doc, QueuedJob q) {
    doc.put("position", q.position())
        .put("namespacePosition", q.namespacePosition())
        .put("effectivePriority", q.effectivePriority())
        .put("serviceClass", q.serviceClass())
        .put("reason", q.reason())
        .put("message", q.message());
    if (q.expectedStart() != null) {
      doc.put("expectedStart", q.expectedStart().truncatedTo(ChronoUnit.SECONDS).toString())
          .put("expectedIn", q.expectedIn())
          .put("expectedNode", q.expectedNode())
          .put("expectedEnd", q.expectedEnd().truncatedTo(ChronoUnit.SECONDS).toString());
    }
    doc.put("startBasis", q.startBasis());
  }

  private static void blockers(ObjectNode doc, List<Blocker> blockers) {
    ArrayNode list = doc.putArray("blockers");
    for (Blocker b : blockers) {
      list.addObject()
          .put("reason", b.reason())
          .put("message", b.message())
          .put("remedy", b.remedy());
    }
  }

  /** The review sent, with its status filled in. */
  ObjectNode fitReview(ObjectNode review, FitAnswer fit) {
    ObjectNode doc = review.deepCopy();
    ObjectNode status = doc.putObject("status");
    status.put("admitted", fit.admitted()).put("phase", fit.phase());
    if (fit.node() != null) {
      status.put("node", fit.node());
    }
    if (fit.admitted() || "Queued".equals(fit.phase())) {
      fields(status, fit.explanation().job());
    } else {
      // Rejected or Skipped: it would never be in the queue, so it has no place, priority or start
      status
          .put("reason", fit.explanation().job().reason())
          .put("message", fit.explanation().job().message());
    }
    blockers(status, fit.blockers());
    if (fit.array() != null) {
      // The fields above are the first item's; the array's own size and end beside them.
      ObjectNode array =
          status
              .putObject("array")
              .put("count", fit.array().count())
              .put("maxRunning", fit.array().maxRunning());
      if (fit.array().expectedEnd() != null) {
        array.put(
            "expectedEnd", fit.array().expectedEnd().truncatedTo(ChronoUnit.SECONDS).toString());
      }
    }
    return doc;
  }

  /** A Table for kubectl get: position, name, priority, class, reason, expected start. */
  ObjectNode table(List<QueuedJob> queue) {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "Table").put("apiVersion", "meta.k8s.io/v1");
    doc.putObject("metadata");
    ArrayNode columns = doc.putArray("columnDefinitions");
    column(columns, "Name", "string", "name", 0);
    column(columns, "Position", "integer", "", 0);
    column(columns, "Priority", "integer", "", 0);
    column(columns, "Class", "string", "", 0);
    column(columns, "Reason", "string", "", 0);
    column(columns, "Expected", "string", "", 0);
    column(columns, "Node", "string", "", 1);
    column(columns, "Basis", "string", "", 1);
    ArrayNode rows = doc.putArray("rows");
    for (QueuedJob q : queue) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      cells
          .add(q.name())
          .add(q.position())
          .add(q.effectivePriority())
          .add(q.serviceClass())
          .add(q.reason())
          .add(expected(q))
          .add(q.expectedNode() == null ? "<none>" : q.expectedNode())
          .add(q.startBasis());
      ObjectNode object = row.putObject("object");
      object.put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1");
      object.putObject("metadata").put("name", q.name()).put("namespace", q.namespace());
    }
    return doc;
  }

  /** "now", "in 12m", or "unknown" when no predicted end makes room: as the start basis says. */
  private static String expected(QueuedJob q) {
    if (q.expectedIn() == null) {
      return "unknown";
    }
    return q.expectedIn().equals("now") ? "now" : "in " + q.expectedIn();
  }

  private static void column(ArrayNode columns, String name, String type, String format, int p) {
    columns
        .addObject()
        .put("name", name)
        .put("type", type)
        .put("format", format)
        .put("description", name)
        .put("priority", p);
  }

  JsonNode status(int code, String reason, String message) {
    ObjectNode doc = json.createObjectNode();
    doc.put("kind", "Status").put("apiVersion", "v1");
    doc.putObject("metadata");
    doc.put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
    return doc;
  }
}
