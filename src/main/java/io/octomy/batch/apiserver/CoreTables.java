package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Table columns of the built-in kinds standalone serves, as the real API server's printers
 * define them (names, types, priorities and how each cell is computed), so that {@code kubectl get
 * events}, {@code get configmaps}, {@code get secrets} and the rest print the columns people know
 * from a cluster. Custom resources use their CRD's printer columns instead ({@link TableRenderer}).
 */
final class CoreTables {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String NONE = "<none>";

  /** One column: its definition and how a row's cell is computed from the object. */
  record Column(
      String name,
      String type,
      String format,
      int priority,
      String description,
      Function<JsonNode, JsonNode> cell) {}

  private final Clock clock;

  CoreTables(Clock clock) {
    this.clock = clock;
  }

  /** The columns of a built-in kind; empty for a kind printed as Name and Age. */
  Optional<List<Column>> columns(String kind) {
    List<Column> c = new ArrayList<>();
    switch (kind) {
      case "Event" -> {
        EventCells e = new EventCells(this::since);
        c.add(text("Last Seen", 0, "Time since the event was last seen", e::lastSeen));
        c.add(text("Type", 0, "Type of the event", o -> o.path("type").asText("")));
        c.add(text("Reason", 0, "Why the event happened", o -> o.path("reason").asText("")));
        c.add(text("Object", 0, "The object the event is about", EventCells::object));
        c.add(
            text(
                "Subobject",
                1,
                "The part of the object",
                o -> EventCells.regarding(o).path("fieldPath").asText("")));
        c.add(text("Source", 1, "Who reported the event", EventCells::source));
        c.add(text("Message", 0, "What happened", o -> EventCells.message(o).strip()));
        c.add(text("First Seen", 1, "Time since the event was first seen", e::firstSeen));
        c.add(
            new Column(
                "Count",
                "integer",
                "",
                1,
                "How often it happened",
                o -> F.numberNode(EventCells.count(o))));
        c.add(text("Name", 1, "The event's name", o -> o.path("metadata").path("name").asText("")));
        return Optional.of(c);
      }
      case "ConfigMap" -> {
        c.add(name());
        c.add(
            new Column(
                "Data",
                "integer",
                "",
                0,
                "Number of entries",
                o -> F.numberNode(o.path("data").size() + o.path("binaryData").size())));
        c.add(age());
      }
      case "Secret" -> {
        c.add(name());
        c.add(text("Type", 0, "The type of secret", o -> o.path("type").asText("")));
        c.add(
            new Column(
                "Data",
                "integer",
                "",
                0,
                "Number of entries",
                o -> F.numberNode(o.path("data").size())));
        c.add(age());
      }
      case "ServiceAccount" -> {
        c.add(name());
        c.add(
            new Column(
                "Secrets",
                "string",
                "",
                0,
                "Number of secrets",
                o -> F.textNode(Integer.toString(o.path("secrets").size()))));
        c.add(age());
      }
      case "Namespace" -> {
        c.add(name());
        c.add(
            text(
                "Status",
                0,
                "The phase of the namespace",
                o -> o.path("status").path("phase").asText("")));
        c.add(age());
      }
      case "Lease" -> {
        c.add(name());
        c.add(
            text(
                "Holder",
                0,
                "The holder of the lease",
                o -> o.path("spec").path("holderIdentity").asText("")));
        c.add(age());
      }
      case "Service" -> {
        c.add(name());
        c.add(
            text(
                "Type",
                0,
                "The type of the service",
                o -> o.path("spec").path("type").asText("ClusterIP")));
        c.add(
            text(
                "Cluster-IP",
                0,
                "The cluster address",
                o -> orNone(o.path("spec").path("clusterIP").asText(""))));
        c.add(text("External-IP", 0, "The external addresses", CoreTables::externalIps));
        c.add(text("Port(s)", 0, "The ports", CoreTables::ports));
        c.add(age());
        c.add(
            text(
                "Selector",
                1,
                "The selector",
                o -> orNone(pairs(o.path("spec").path("selector")))));
      }
      case "Pod" -> {
        c.add(name());
        c.add(text("Ready", 0, "Ready containers", CoreTables::readyContainers));
        c.add(text("Status", 0, "The state of the pod", CoreTables::podStatus));
        c.add(text("Restarts", 0, "Container restarts", CoreTables::restarts));
        c.add(age());
        c.add(
            text(
                "IP",
                1,
                "The pod's address",
                o -> orNone(o.path("status").path("podIP").asText(""))));
        c.add(
            text(
                "Node",
                1,
                "The node it runs on",
                o -> orNone(o.path("spec").path("nodeName").asText(""))));
        c.add(
            text(
                "Nominated Node",
                1,
                "The node nominated for it",
                o -> orNone(o.path("status").path("nominatedNodeName").asText(""))));
        c.add(text("Readiness Gates", 1, "Readiness gates met", CoreTables::readinessGates));
      }
      case "Node" -> {
        c.add(name());
        c.add(text("Status", 0, "Whether the node is ready", CoreTables::nodeStatus));
        c.add(text("Roles", 0, "The node's roles", CoreTables::nodeRoles));
        c.add(age());
        c.add(
            text(
                "Version",
                0,
                "The kubelet's version",
                o -> o.path("status").path("nodeInfo").path("kubeletVersion").asText("")));
      }
      case "CustomResourceDefinition" -> {
        c.add(name());
        c.add(
            new Column(
                "Created At",
                "date",
                "",
                0,
                "When it was created",
                o -> F.textNode(o.path("metadata").path("creationTimestamp").asText(""))));
      }
      default -> {
        return Optional.empty();
      }
    }
    return Optional.of(c);
  }

  private static Column text(
      String name, int priority, String description, Function<JsonNode, String> value) {
    return new Column(name, "string", "", priority, description, o -> F.textNode(value.apply(o)));
  }

  static Column name() {
    return new Column(
        "Name",
        "string",
        "name",
        0,
        "Name must be unique within a namespace. Cannot be updated.",
        o -> F.textNode(o.path("metadata").path("name").asText("")));
  }

  Column age() {
    return new Column(
        "Age",
        "string",
        "",
        0,
        "CreationTimestamp is a timestamp representing the server time when this object was created.",
        o -> F.textNode(since(o.path("metadata").path("creationTimestamp").asText(""))));
  }

  /** kubectl's age of a timestamp; {@code <unknown>} when there is none. */
  String since(String timestamp) {
    if (timestamp.isEmpty()) {
      return "<unknown>";
    }
    try {
      return HumanDuration.format(Duration.between(Instant.parse(timestamp), clock.instant()));
    } catch (DateTimeParseException e) {
      return "<invalid>";
    }
  }

  private static String orNone(String s) {
    return s.isEmpty() ? NONE : s;
  }

  private static String pairs(JsonNode map) {
    List<String> out = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.add(e.getKey() + "=" + e.getValue().asText());
    }
    out.sort(null);
    return String.join(",", out);
  }

  private static String externalIps(JsonNode svc) {
    List<String> ips = new ArrayList<>();
    svc.path("spec").path("externalIPs").forEach(ip -> ips.add(ip.asText()));
    String type = svc.path("spec").path("type").asText("ClusterIP");
    if (type.equals("LoadBalancer")) {
      svc.path("status")
          .path("loadBalancer")
          .path("ingress")
          .forEach(i -> ips.add(i.path("ip").asText(i.path("hostname").asText())));
      return ips.isEmpty() ? "<pending>" : String.join(",", ips);
    }
    if (type.equals("ExternalName")) {
      return svc.path("spec").path("externalName").asText("");
    }
    return ips.isEmpty() ? NONE : String.join(",", ips);
  }

  private static String ports(JsonNode svc) {
    List<String> out = new ArrayList<>();
    for (JsonNode p : svc.path("spec").path("ports")) {
      String node = p.path("nodePort").asInt(0) > 0 ? ":" + p.path("nodePort").asInt() : "";
      out.add(p.path("port").asInt() + node + "/" + p.path("protocol").asText("TCP"));
    }
    return out.isEmpty() ? NONE : String.join(",", out);
  }

  private static String readyContainers(JsonNode pod) {
    int total = pod.path("spec").path("containers").size();
    int ready = 0;
    for (JsonNode s : pod.path("status").path("containerStatuses")) {
      ready += s.path("ready").asBoolean(false) ? 1 : 0;
    }
    return ready + "/" + total;
  }

  private static String podStatus(JsonNode pod) {
    if (pod.path("metadata").has("deletionTimestamp")) {
      return "Terminating";
    }
    String reason = pod.path("status").path("reason").asText("");
    if (!reason.isEmpty()) {
      return reason;
    }
    for (JsonNode s : pod.path("status").path("containerStatuses")) {
      String waiting = s.path("state").path("waiting").path("reason").asText("");
      if (!waiting.isEmpty()) {
        return waiting;
      }
    }
    return pod.path("status").path("phase").asText("Pending");
  }

  private static String restarts(JsonNode pod) {
    long n = 0;
    for (JsonNode s : pod.path("status").path("containerStatuses")) {
      n += s.path("restartCount").asLong(0);
    }
    return Long.toString(n);
  }

  private static String readinessGates(JsonNode pod) {
    JsonNode gates = pod.path("spec").path("readinessGates");
    if (gates.size() == 0) {
      return NONE;
    }
    int met = 0;
    for (JsonNode gate : gates) {
      String type = gate.path("conditionType").asText();
      for (JsonNode c : pod.path("status").path("conditions")) {
        if (c.path("type").asText().equals(type) && c.path("status").asText().equals("True")) {
          met++;
        }
      }
    }
    return met + "/" + gates.size();
  }

  private static String nodeStatus(JsonNode node) {
    String status = "Unknown";
    for (JsonNode c : node.path("status").path("conditions")) {
      if (c.path("type").asText().equals("Ready")) {
        status = c.path("status").asText().equals("True") ? "Ready" : "NotReady";
      }
    }
    return node.path("spec").path("unschedulable").asBoolean(false)
        ? status + ",SchedulingDisabled"
        : status;
  }

  private static String nodeRoles(JsonNode node) {
    List<String> roles = new ArrayList<>();
    for (Iterator<String> it = node.path("metadata").path("labels").fieldNames(); it.hasNext(); ) {
      String label = it.next();
      if (label.startsWith("node-role.kubernetes.io/")) {
        roles.add(label.substring("node-role.kubernetes.io/".length()));
      }
    }
    roles.sort(null);
    return roles.isEmpty() ? NONE : String.join(",", roles);
  }
}
