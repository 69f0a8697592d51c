package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link FieldModel}s of the kinds served here.
 *
 * <p>A custom resource's model is its CRD's structural schema, read as the real server prunes:
 * {@code properties} name the known fields, {@code x-kubernetes-preserve-unknown-fields} and {@code
 * additionalProperties} keep every field, an embedded resource knows {@code apiVersion}, {@code
 * kind} and {@code metadata}, and {@code metadata} at the root is ObjectMeta.
 *
 * <p>A built-in kind's model is its fabric8 model class, which is generated from Kubernetes' own
 * OpenAPI: the JSON properties Jackson finds on the class are the fields the real server's Go type
 * has. A class with a deserializer of its own (Quantity, IntOrString, a JSON schema's {@code
 * additionalProperties}) is a value of its own, not an object with fields.
 */
final class FieldModels {

  private static final Set<String> RESOURCE_ROOT = Set.of("apiVersion", "kind", "metadata");

  private static final ObjectMapper INTROSPECTION = new ObjectMapper();

  /** events.k8s.io/v1 Event, whose class shares its simple name with core v1 Event. */
  private static final String EVENTS_V1 = "io.fabric8.kubernetes.api.model.events.v1.Event";

  private static final Map<String, JavaType> BUILT_IN =
      Map.of(
          "/namespaces", typeOf(Namespace.class),
          "/pods", typeOf(Pod.class),
          "/events", typeOf(Event.class),
          "/configmaps", typeOf(ConfigMap.class),
          "/secrets", typeOf(Secret.class),
          "/services", typeOf(Service.class),
          "/serviceaccounts", typeOf(ServiceAccount.class),
          "/nodes", typeOf(Node.class),
          "events.k8s.io/events", INTROSPECTION.getTypeFactory().constructFromCanonical(EVENTS_V1),
          "coordination.k8s.io/leases", typeOf(Lease.class));

  private static final Map<JavaType, FieldModel> BY_CLASS = new ConcurrentHashMap<>();

  private static final FieldModel OBJECT_META = ofType(typeOf(ObjectMeta.class));

  private FieldModels() {}

  /**
   * The model of objects of {@code type} at {@code version}; empty when the fields of that kind are
   * not known here (then nothing is called unknown).
   */
  static Optional<FieldModel> of(ResourceType type, String version) {
    if (type.isCustom()) {
      JsonNode schema = type.schemas().get(version);
      return Optional.of(
          customResource(schema == null ? type.schemas().values().iterator().next() : schema));
    }
    return builtInType(type).map(FieldModels::ofType);
  }

  /** The fabric8 model type of a built-in kind served here. */
  static Optional<JavaType> builtInType(ResourceType type) {
    if (type.group().equals(ResourceRegistry.CRD_GROUP)) {
      return Optional.of(typeOf(CustomResourceDefinition.class));
    }
    return Optional.ofNullable(BUILT_IN.get(type.key()));
  }

  /** The root of a custom resource: apiVersion, kind, ObjectMeta, and what the schema declares. */
  static FieldModel customResource(JsonNode schema) {
    FieldModel declared = ofSchema(schema);
    return new FieldModel.Struct(
        key ->
            switch (key) {
              case "metadata" -> OBJECT_META;
              case "apiVersion", "kind" -> FieldModel.ANY;
              default -> declared.field(key);
            });
  }

  /** A structural schema's model. */
  static FieldModel ofSchema(JsonNode schema) {
    if (schema == null
        || !schema.isObject()
        || schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
      return FieldModel.ANY;
    }
    String type = schema.path("type").asText("");
    if (type.equals("array")) {
      return new FieldModel.ListOf(ofSchema(schema.get("items")));
    }
    boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    JsonNode additional = schema.get("additionalProperties");
    if (additional != null && additional.isObject()) {
      return new FieldModel.MapOf(ofSchema(additional));
    }
    if (additional != null && additional.asBoolean(false)) {
      return FieldModel.ANY;
    }
    JsonNode properties = schema.get("properties");
    boolean embedded = schema.path("x-kubernetes-embedded-resource").asBoolean(false);
    if (properties == null && !embedded) {
      // a scalar, or an object without declared fields: only preserved fields survive there
      return preserve || !type.equals("object") ? FieldModel.ANY : new FieldModel.Struct(k -> null);
    }
    Map<String, FieldModel> known = new ConcurrentHashMap<>();
    return new FieldModel.Struct(
        key -> {
          JsonNode declared = properties == null ? null : properties.get(key);
          if (declared != null) {
            return known.computeIfAbsent(key, k -> ofSchema(declared));
          }
          if (embedded && RESOURCE_ROOT.contains(key)) {
            return key.equals("metadata") ? OBJECT_META : FieldModel.ANY;
          }
          return preserve ? FieldModel.ANY : null;
        });
  }

  /** A fabric8 model type's model (a bean, a list or map of them, or a value). */
  static FieldModel ofType(JavaType type) {
    if (type.isContainerType() && !type.isMapLikeType()) {
      return new FieldModel.ListOf(ofType(type.getContentType()));
    }
    if (type.isMapLikeType()) {
      return new FieldModel.MapOf(ofType(type.getContentType()));
    }
    Class<?> raw = type.getRawClass();
    JsonDeserialize custom = raw.getAnnotation(JsonDeserialize.class);
    if (!raw.getPackageName().startsWith("io.fabric8.kubernetes.api.model")
        || custom == null
        || custom.using() != JsonDeserializer.None.class) {
      return FieldModel.ANY;
    }
    FieldModel cached = BY_CLASS.get(type);
    if (cached != null) {
      return cached;
    }
    BeanDescription bean = INTROSPECTION.getDeserializationConfig().introspect(type);
    Map<String, JavaType> fields = new HashMap<>();
    for (BeanPropertyDefinition property : bean.findProperties()) {
      if (!isCatchAll(property)) {
        fields.put(property.getName(), property.getPrimaryType());
      }
    }
    // A class without fields is free-form, such as a managedFields entry's fieldsV1. Either model
    // is kept: introspecting a class costs far more than looking its model up, every request.
    FieldModel model =
        fields.isEmpty()
            ? FieldModel.ANY
            : new FieldModel.Struct(
                key -> {
                  JavaType field = fields.get(key);
                  return field == null ? null : ofType(field);
                });
    FieldModel first = BY_CLASS.putIfAbsent(type, model);
    return first == null ? model : first;
  }

  /**
   * Whether a model class's property is fabric8's map of fields its type does not know (named
   * {@code additionalProperties}), rather than a field of the API: a JSON schema's {@code
   * additionalProperties} (a CRD's maps) is one, and is not a map.
   */
  static boolean isCatchAll(BeanPropertyDefinition property) {
    return property.getName().equals("additionalProperties")
        && property.getPrimaryType().isMapLikeType();
  }

  /** Whether {@code type}'s model has been made and kept; for tests in this package. */
  static boolean kept(JavaType type) {
    return BY_CLASS.containsKey(type);
  }

  static JavaType typeOf(Class<?> c) {
    return INTROSPECTION.constructType(c);
  }
}
