package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.vocabulary.LabelRules;
import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ResourceNames;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The CRD's rules again, in Java, for API servers that do not run them (the mock server, older
 * clusters). It reads the raw JSON of a spec rather than the typed POJO, because typed reading
 * would silently turn {@code 0.5} into {@code 0} and fail outright on {@code "500m"}. Every problem
 * is a sentence that says what to write instead.
 */
public final class SpecValidator {

  private static final Set<String> SPEC_FIELDS =
      Set.of(
          "type",
          "group",
          "origin",
          "after",
          "locks",
          "suspend",
          "backoffLimit",
          "activeDeadlineSeconds",
          "nodeSelector",
          "ttlSecondsAfterFinished",
          "array",
          "replicas",
          "resources",
          "template");
  private static final Set<String> RESOURCES_FIELDS = Set.of("requests", "limits");
  private static final Set<String> ARRAY_FIELDS = Set.of("count", "maxRunning");
  private static final Pattern DNS_LABEL = Pattern.compile(ResourceNames.DNS_LABEL_REGEX);
  private static final Pattern DNS_SUBDOMAIN = Pattern.compile(ResourceNames.DNS_SUBDOMAIN_REGEX);
  private static final Pattern LOCK_KEY = Pattern.compile(ResourceNames.LOCK_KEY_REGEX);
  private static final BigInteger MAX_QUANTITY = BigInteger.valueOf(Quantities.MAX);
  private static final String CONTAINERS = "spec.template.spec.containers";
  private static final String NO_TEMPLATE =
      "spec.template is missing; write a pod template with at least one container, like {spec: {containers: [{name: main, image: busybox, command: [sh, -c, 'echo hi']}]}}";
  private static final String NO_CONTAINERS =
      "spec.template has no containers; write spec.template.spec.containers with at least one container";
  private static final String NOTHING_TO_RUN =
      "spec.template.spec.containers[0] has neither an image nor a command; write an image (Pod nodes) or a command (Process nodes)";

  /**
   * The JSON form of a typed spec but its Pod template, which is checked typed: writing the whole
   * template out as a tree for three facts about its first container was two thirds of a spec's
   * check, and the first pass over a backlog of 10,000 new jobs took half as long again.
   */
  @JsonIgnoreProperties({"template"})
  private interface TemplateLeftOut {}

  private static final ObjectMapper WITHOUT_TEMPLATE =
      Serialization.jsonMapper().copy().addMixIn(BatchJobSpec.class, TemplateLeftOut.class);

  private SpecValidator() {}

  /**
   * Problems of a typed spec: its JSON form is checked, with any quantities that were not whole
   * numbers put back as they were written (see {@link QuantityMap}).
   */
  public static List<String> problems(BatchJobSpec spec) {
    if (spec == null) {
      return problems((JsonNode) null);
    }
    if (spec.malformed().has("")) {
      return problems(spec.malformed().get("")); // the spec itself was not a mapping
    }
    ObjectNode tree = WITHOUT_TEMPLATE.valueToTree(spec);
    tree.setAll(spec.malformed()); // back as written, so each gets its sentence
    Resources r = spec.getResources();
    if (r != null && tree.get("resources") instanceof ObjectNode res) {
      restoreMalformed(res, "requests", r.getRequests());
      restoreMalformed(res, "limits", r.getLimits());
    }
    JsonNode malformedTemplate = spec.malformed().get("template");
    return problems(
        tree,
        malformedTemplate != null
            ? out -> template(malformedTemplate, out)
            : out -> template(spec.getTemplate(), out));
  }

  private static void restoreMalformed(ObjectNode resources, String field, Map<String, Long> map) {
    if (map instanceof QuantityMap q && !q.malformed().isEmpty()) {
      JsonNode target = resources.get(field);
      if (q.malformed().containsKey("")) {
        resources.set(field, q.malformed().get(""));
      } else if (target instanceof ObjectNode obj) {
        q.malformed().forEach(obj::set);
      } else {
        ObjectNode obj = resources.putObject(field);
        q.malformed().forEach(obj::set);
      }
    }
  }

  /** Every problem of a BatchJob's raw {@code spec}; empty when it is valid. */
  public static List<String> problems(JsonNode spec) {
    return problems(spec, out -> template(spec.get("template"), out));
  }

  private static List<String> problems(JsonNode spec, Consumer<List<String>> template) {
    List<String> out = new ArrayList<>();
    if (spec == null || spec.isNull() || spec.isMissingNode()) {
      out.add("spec is missing; write a spec with at least a template (what to run)");
      return sentences(out);
    }
    if (!spec.isObject()) {
      out.add(
          "spec is "
              + kind(spec)
              + "; write it as a mapping with template, resources and the other fields");
      return sentences(out);
    }
    unknownFields(spec, SPEC_FIELDS, "spec", out);
    label(spec.get("type"), "spec.type", "mesh-export", out);
    label(spec.get("group"), "spec.group", "simulator", out);
    origin(spec.get("origin"), out);
    after(spec.get("after"), out);
    locks(spec.get("locks"), out);
    suspend(spec.get("suspend"), out);
    wholeInRange(
        spec.get("backoffLimit"),
        "spec.backoffLimit",
        0,
        BatchJobSpec.MAX_BACKOFF_LIMIT,
        "the failed runs to retry, like 2",
        out);
    wholeInRange(
        spec.get("activeDeadlineSeconds"),
        "spec.activeDeadlineSeconds",
        1,
        BatchJobSpec.MAX_ACTIVE_DEADLINE_SECONDS,
        "the seconds a run may last, like 3600",
        out);
    nodeSelector(spec.get("nodeSelector"), out);
    ttl(spec.get("ttlSecondsAfterFinished"), out);
    array(spec.get("array"), out);
    wholeInRange(
        spec.get("replicas"),
        "spec.replicas",
        1,
        BatchJobSpec.MAX_REPLICAS,
        "the copies that run together, like 4",
        out);
    resources(spec.get("resources"), out);
    template.accept(out);
    return sentences(out);
  }

  /** Each problem ends with a full stop, so several read well joined into one message. */
  private static List<String> sentences(List<String> problems) {
    return problems.stream()
        .map(p -> p.endsWith(".") ? p : p + ".")
        .collect(Collectors.toCollection(ArrayList::new));
  }

  private static void unknownFields(
      JsonNode obj, Set<String> known, String path, List<String> out) {
    for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        out.add(
            path
                + "."
                + f
                + " is not a field of "
                + path
                + "; the fields are "
                + String.join(", ", known.stream().sorted().toList()));
      }
    }
  }

  private static void label(JsonNode v, String path, String example, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isTextual()) {
      out.add(path + " is " + kind(v) + "; write a name like " + example);
    } else if (v.asText().length() > 63 || !DNS_LABEL.matcher(v.asText()).matches()) {
      out.add(
          path
              + " '"
              + clip(v.asText())
              + "' is not a valid name; use at most 63 lower-case letters, digits and '-', like "
              + example);
    }
  }

  private static void origin(JsonNode v, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isTextual()
        || v.asText().length() > 253
        || !DNS_SUBDOMAIN.matcher(v.asText()).matches()) {
      out.add(
          "spec.origin "
              + describe(v)
              + " is not a BatchNode name; write the node's name, like ws-7");
    }
  }

  private static void after(JsonNode v, List<String> out) {
    List<JsonNode> items = list(v, "spec.after", BatchJobSpec.MAX_AFTER, "[preprocess-41]", out);
    for (int i = 0; i < items.size(); i++) {
      JsonNode n = items.get(i);
      if (!n.isTextual()
          || n.asText().length() > 253
          || !DNS_SUBDOMAIN.matcher(n.asText()).matches()) {
        out.add(
            "spec.after["
                + i
                + "] "
                + describe(n)
                + " is not a BatchJob name; write the name of a job in this namespace, like preprocess-41");
      }
    }
  }

  private static void locks(JsonNode v, List<String> out) {
    List<JsonNode> items = list(v, "spec.locks", BatchJobSpec.MAX_LOCKS, "[subject/ernie]", out);
    for (int i = 0; i < items.size(); i++) {
      JsonNode n = items.get(i);
      if (!n.isTextual()
          || n.asText().length() > BatchJobSpec.MAX_LOCK_KEY_LENGTH
          || !LOCK_KEY.matcher(n.asText()).matches()) {
        out.add(
            "spec.locks["
                + i
                + "] "
                + describe(n)
                + " is not a lock key; write segments of letters, digits, '-', '_' and '.' joined by '/', like subject/ernie");
      }
    }
  }

  private static void suspend(JsonNode v, List<String> out) {
    if (v != null && !v.isNull() && !v.isBoolean()) {
      out.add("spec.suspend is " + kind(v) + "; write true (held) or false");
    }
  }

  private static void ttl(JsonNode v, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 0) {
      out.add(
          "spec.ttlSecondsAfterFinished is "
              + kind(v)
              + "; write a whole number of seconds from 0 to "
              + BatchJobSpec.MAX_TTL_SECONDS
              + ", like 86400 (delete the job a day after it ended)");
    }
  }

  private static void array(JsonNode v, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isObject()) {
      out.add("spec.array is " + kind(v) + "; write a mapping like {count: 100, maxRunning: 10}");
      return;
    }
    unknownFields(v, ARRAY_FIELDS, "spec.array", out);
    if (v.get("count") == null || v.get("count").isNull()) {
      out.add("spec.array.count is missing; write the number of items, like 100");
    }
    wholeInRange(
        v.get("count"),
        "spec.array.count",
        1,
        ArraySpec.MAX_COUNT,
        "the number of items, like 100",
        out);
    wholeInRange(
        v.get("maxRunning"),
        "spec.array.maxRunning",
        1,
        ArraySpec.MAX_COUNT,
        "the most items unfinished at once, like 10",
        out);
  }

  private static void wholeInRange(
      JsonNode v, String path, long min, long max, String what, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isIntegralNumber()
        || !v.canConvertToLong()
        || v.longValue() < min
        || v.longValue() > max) {
      out.add(
          path
              + " is "
              + describe(v)
              + "; write a whole number from "
              + min
              + " to "
              + max
              + ": "
              + what);
    }
  }

  private static void nodeSelector(JsonNode v, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isObject()) {
      out.add(
          "spec.nodeSelector is " + kind(v) + "; write a mapping of node labels, like {disk: ssd}");
      return;
    }
    if (v.size() > LabelRules.MAX_SELECTOR_PAIRS) {
      out.add(
          "spec.nodeSelector has "
              + v.size()
              + " labels; at most "
              + LabelRules.MAX_SELECTOR_PAIRS
              + " are allowed");
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String at = "spec.nodeSelector['" + clip(e.getKey()) + "']";
      if (!LabelRules.isValidKey(e.getKey())) {
        out.add(
            at
                + " is not a label key; write an optional DNS prefix and '/', then at most 63"
                + " letters, digits, '-', '_' and '.' starting and ending with a letter or digit,"
                + " like disk or example.com/licence");
      }
      JsonNode value = e.getValue();
      if (!value.isTextual()) {
        out.add(at + " is " + kind(value) + "; write the label's value as a string, like ssd");
      } else if (!LabelRules.isValidValue(value.asText())) {
        out.add(
            at
                + " '"
                + clip(value.asText())
                + "' is not a label value; use at most 63 letters, digits, '-', '_' and '.'"
                + " starting and ending with a letter or digit, like ssd");
      }
    }
  }

  private static List<JsonNode> list(
      JsonNode v, String path, int max, String example, List<String> out) {
    List<JsonNode> items = new ArrayList<>();
    if (v == null || v.isNull()) {
      return items;
    }
    if (!v.isArray()) {
      out.add(path + " is " + kind(v) + "; write a list, like " + example);
      return items;
    }
    if (v.size() > max) {
      out.add(path + " has " + v.size() + " entries; at most " + max + " are allowed");
      return items;
    }
    v.forEach(items::add);
    return items;
  }

  private static void resources(JsonNode v, List<String> out) {
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isObject()) {
      out.add("spec.resources is " + kind(v) + "; write a mapping with requests and limits");
      return;
    }
    unknownFields(v, RESOURCES_FIELDS, "spec.resources", out);
    Map<String, Long> requests = quantities(v.get("requests"), "spec.resources.requests", out);
    Map<String, Long> limits = quantities(v.get("limits"), "spec.resources.limits", out);
    requests.forEach(
        (name, request) -> {
          Long limit = limits.get(name);
          if (limit != null && request > limit) {
            out.add(
                "spec.resources.requests['"
                    + name
                    + "'] is "
                    + request
                    + ", above its limit "
                    + limit
                    + "; lower the request to at most "
                    + limit
                    + " or raise the limit to at least "
                    + request);
          }
        });
  }

  private static Map<String, Long> quantities(JsonNode v, String path, List<String> out) {
    Map<String, Long> good = new LinkedHashMap<>();
    if (v == null || v.isNull()) {
      return good;
    }
    if (!v.isObject()) {
      out.add(
          path
              + " is "
              + kind(v)
              + "; write a mapping of resource names to whole numbers, like {octomy.io/cpu-milli: 2000}");
      return good;
    }
    if (v.size() > ResourceNames.MAX_PER_MAP) {
      out.add(
          path
              + " has "
              + v.size()
              + " resource names; at most "
              + ResourceNames.MAX_PER_MAP
              + " are allowed");
      return good;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String name = e.getKey();
      JsonNode q = e.getValue();
      String at = path + "['" + clip(name) + "']";
      boolean nameOk = ResourceNames.isValid(name);
      if (!nameOk) {
        out.add(nameProblem(name));
      }
      if (q.isIntegralNumber()) {
        BigInteger n = q.bigIntegerValue();
        if (n.signum() < 0) {
          out.add(at + " is " + n + "; quantities are whole numbers >= 0: write 0 or more");
        } else if (n.compareTo(MAX_QUANTITY) > 0) {
          out.add(
              at
                  + " is "
                  + n
                  + ", too large; quantities are at most "
                  + Quantities.MAX
                  + " (2^53 - 1): use a larger unit in the name");
        } else if (nameOk) {
          good.put(name, n.longValue());
        }
      } else if (q.isNumber()) {
        out.add(
            at
                + " is "
                + q.asText()
                + ", a fraction; quantities are whole numbers: use a smaller unit in the name"
                + " (0.5 cpu is 500 octomy.io/cpu-milli) and write "
                + suggestWhole(q));
      } else if (q.isTextual()) {
        out.add(
            at
                + " is the string \""
                + clip(q.asText())
                + "\"; quantities are plain whole numbers with the unit in the"
                + " name: write 500 under octomy.io/cpu-milli, not \"500m\"");
      } else {
        out.add(at + " is " + kind(q) + "; write a whole number >= 0");
      }
    }
    return good;
  }

  private static String nameProblem(String name) {
    return ResourceNames.problem(name);
  }

  private static void template(JsonNode v, List<String> out) {
    if (v == null || v.isNull()) {
      out.add(NO_TEMPLATE);
      return;
    }
    JsonNode containers = v.path("spec").path("containers");
    if (!v.isObject() || !containers.isArray() || containers.isEmpty()) {
      out.add(NO_CONTAINERS);
      return;
    }
    JsonNode first = containers.get(0);
    JsonNode command = first.path("command");
    if (!first.isObject()
        || !(first.path("image").isTextual() || (command.isArray() && !command.isEmpty()))) {
      out.add(NOTHING_TO_RUN);
    }
    for (int i = 0; i < containers.size(); i++) {
      out.addAll(LaunchFields.problems(containers.get(i), CONTAINERS + "[" + i + "]"));
    }
  }

  /**
   * The same checks on a typed template; on both, an empty command list is no command, and what no
   * process can start with is named ({@link LaunchFields}).
   */
  private static void template(PodTemplateSpec t, List<String> out) {
    if (t == null) {
      out.add(NO_TEMPLATE);
      return;
    }
    List<Container> containers = t.getSpec() == null ? null : t.getSpec().getContainers();
    if (containers == null || containers.isEmpty()) {
      out.add(NO_CONTAINERS);
      return;
    }
    Container first = containers.get(0);
    if (first == null
        || (first.getImage() == null
            && (first.getCommand() == null || first.getCommand().isEmpty()))) {
      out.add(NOTHING_TO_RUN);
    }
    for (int i = 0; i < containers.size(); i++) {
      out.addAll(LaunchFields.problems(containers.get(i), CONTAINERS + "[" + i + "]"));
    }
  }

  private static String suggestWhole(JsonNode q) {
    double d = q.asDouble();
    return d < 0
        ? "a number >= 0"
        : String.valueOf((long) Math.ceil(d)) + " or a whole number in the smaller unit";
  }

  private static String describe(JsonNode v) {
    return v.isTextual() ? "'" + clip(v.asText()) + "'" : "(" + kind(v) + ")";
  }

  private static String kind(JsonNode v) {
    JsonNodeType t = v.getNodeType();
    return switch (t) {
      case ARRAY -> "a list";
      case OBJECT -> "a mapping";
      case STRING -> "a string";
      case NUMBER -> "the number " + v.asText();
      case BOOLEAN -> "a boolean";
      default -> "empty";
    };
  }

  /** Keeps messages readable when someone pastes a huge name. */
  private static String clip(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
