package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.octomy.batch.standalone.StandaloneRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Every field the fuzzer mutates: the product's CRD schemas as the server serves them, walked
 * property by property, plus what the Kubernetes object model puts around them and the schemas
 * leave open (metadata, the Pod template beyond the launch fields, DeleteOptions).
 */
final class FuzzedFields {

  /** {@code []} stands for a list's first item, {@code {}} for a map's entry {@value #MAP_KEY}. */
  static final String ITEM = "[]";

  static final String ENTRY = "{}";
  static final String MAP_KEY = "example.com/fuzz";

  /** One field: the resource it is in, its path from the object's root, its declared type. */
  record Field(String kind, List<String> path, String type) {
    String dotted() {
      return kind + ":" + String.join(".", path).replace(".[]", "[]").replace(".{}", "{}");
    }
  }

  /** Fields every object has, typed as the Kubernetes object model types them. */
  private static final String[][] METADATA = {
    {"metadata.name", "string"},
    {"metadata.generateName", "string"},
    {"metadata.namespace", "string"},
    {"metadata.uid", "string"},
    {"metadata.resourceVersion", "string"},
    {"metadata.generation", "integer"},
    {"metadata.creationTimestamp", "string"},
    {"metadata.deletionTimestamp", "string"},
    {"metadata.deletionGracePeriodSeconds", "integer"},
    {"metadata.labels", "object"},
    {"metadata.labels.{}", "string"},
    {"metadata.annotations", "object"},
    {"metadata.annotations.{}", "string"},
    {"metadata.finalizers", "array"},
    {"metadata.finalizers.[]", "string"},
    {"metadata.ownerReferences", "array"},
    {"metadata.ownerReferences.[]", "object"},
    {"metadata.ownerReferences.[].apiVersion", "string"},
    {"metadata.ownerReferences.[].kind", "string"},
    {"metadata.ownerReferences.[].name", "string"},
    {"metadata.ownerReferences.[].uid", "string"},
    {"metadata.ownerReferences.[].controller", "boolean"},
    {"metadata.managedFields", "array"},
    {"metadata.managedFields.[]", "object"},
    {"metadata.managedFields.[].manager", "string"},
    {"metadata.managedFields.[].operation", "string"},
    {"metadata.managedFields.[].fieldsV1", "object"},
    {"metadata.managedFields.[].time", "string"},
    {"apiVersion", "string"},
    {"kind", "string"},
  };

  /** The Pod template's fields a user writes beyond the schema's typed launch fields. */
  private static final String[][] POD_TEMPLATE = {
    {"metadata", "object"},
    {"metadata.labels", "object"},
    {"spec.restartPolicy", "string"},
    {"spec.nodeSelector", "object"},
    {"spec.volumes", "array"},
    {"spec.initContainers", "array"},
    {"spec.initContainers.[]", "object"},
    {"spec.containers.[].name", "string"},
    {"spec.containers.[].image", "string"},
    {"spec.containers.[].resources", "object"},
    {"spec.containers.[].resources.limits.{}", "string"},
    {"spec.containers.[].volumeMounts", "array"},
    {"spec.containers.[].securityContext", "object"},
    {"spec.containers.[].env.[].valueFrom", "object"},
  };

  /** The body of a DELETE, sent by the two delete verbs. */
  static final String[][] DELETE_OPTIONS = {
    {"preconditions", "object"},
    {"preconditions.uid", "string"},
    {"preconditions.resourceVersion", "string"},
    {"propagationPolicy", "string"},
    {"gracePeriodSeconds", "integer"},
    {"orphanDependents", "boolean"},
    {"dryRun", "array"},
    {"dryRun.[]", "string"},
    {"apiVersion", "string"},
    {"kind", "string"},
  };

  private FuzzedFields() {}

  /** All fields of the product's four kinds, schema first, then metadata and the Pod template. */
  static List<Field> all() {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<Field> fields = new ArrayList<>();
    for (String crd : StandaloneRuntime.productCrds()) {
      JsonNode c;
      try {
        c = yaml.readTree(crd);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      String kind = c.path("spec").path("names").path("kind").asText();
      JsonNode schema = c.path("spec").path("versions").path(0).path("schema");
      walk(kind, new ArrayList<>(), schema.path("openAPIV3Schema"), fields);
      for (String[] m : METADATA) {
        fields.add(new Field(kind, List.of(m[0].split("\\.")), m[1]));
      }
      if (kind.equals("BatchJob")) {
        for (String[] t : POD_TEMPLATE) {
          fields.add(new Field(kind, List.of(("spec.template." + t[0]).split("\\.")), t[1]));
        }
      }
    }
    for (String[] d : DELETE_OPTIONS) {
      fields.add(new Field("DeleteOptions", List.of(d[0].split("\\.")), d[1]));
    }
    return fields;
  }

  private static void walk(String kind, List<String> at, JsonNode schema, List<Field> out) {
    if (!at.isEmpty()) {
      out.add(new Field(kind, List.copyOf(at), schema.path("type").asText("any")));
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      if (at.isEmpty() && p.getKey().equals("metadata")) {
        continue; // the object model's fields below, typed as a real server types them
      }
      walk(kind, append(at, p.getKey()), p.getValue(), out);
    }
    if (schema.has("items")) {
      walk(kind, append(at, ITEM), schema.get("items"), out);
    }
    if (schema.path("additionalProperties").isObject()) {
      walk(kind, append(at, ENTRY), schema.get("additionalProperties"), out);
    }
  }

  private static List<String> append(List<String> path, String token) {
    List<String> p = new ArrayList<>(path);
    p.add(token);
    return p;
  }
}
