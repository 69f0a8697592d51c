package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link FieldShape}s of the kinds served here, built as the real server builds its
 * structured-merge-diff schemas.
 *
 * <p>A custom resource: lists are atomic unless {@code x-kubernetes-list-type} says {@code set} or
 * {@code map} (keyed by {@code x-kubernetes-list-map-keys}), objects are owned field by field
 * unless {@code x-kubernetes-map-type: atomic}, {@code x-kubernetes-preserve-unknown-fields} makes
 * the undeclared part deduced, and {@code metadata} is ObjectMeta.
 *
 * <p>A built-in kind: its fabric8 model class gives the fields; which lists are keyed comes from
 * the list types Kubernetes declares on its Go types, for the lists the kinds served here have
 * (metadata's owner references and finalizers, a Pod's containers, volumes and environment, and
 * status conditions). Other lists are atomic.
 */
final class FieldShapes {

  private static final ObjectMapper INTROSPECTION = new ObjectMapper();

  /** The keyed lists of the built-in kinds served here, by field name. */
  private static final Map<String, FieldShape.Items> BUILT_IN_LISTS =
      Map.of(
          "ownerReferences", keyed("uid"),
          "finalizers", new FieldShape.Items(FieldShape.SCALAR, FieldShape.ListKind.SET, List.of()),
          "containers", keyed("name"),
          "initContainers", keyed("name"),
          "volumes", keyed("name"),
          "env", keyed("name"),
          "conditions", keyed("type"));

  private static final Map<JavaType, FieldShape> BY_CLASS = new ConcurrentHashMap<>();

  static final FieldShape OBJECT_META = ofType(INTROSPECTION.constructType(ObjectMeta.class));

  private FieldShapes() {}

  /** The shape of objects of {@code type}, or {@link FieldShape#DEDUCED} when none is known. */
  static FieldShape of(ResourceType type, String version) {
    if (type.isCustom()) {
      JsonNode schema = type.schemas().get(version);
      return customResource(schema != null ? schema : type.schemas().values().iterator().next());
    }
    return FieldModels.builtInType(type).map(FieldShapes::ofType).orElse(FieldShape.DEDUCED);
  }

  static FieldShape customResource(JsonNode schema) {
    FieldShape declared = ofSchema(schema);
    Map<String, FieldShape> root = new HashMap<>();
    root.put("apiVersion", FieldShape.SCALAR);
    root.put("kind", FieldShape.SCALAR);
    root.put("metadata", OBJECT_META);
    return new FieldShape.Fields(
        key ->
            root.containsKey(key)
                ? root.get(key)
                : declared instanceof FieldShape.Fields f ? f.declared().apply(key) : null,
        declared instanceof FieldShape.Fields f ? f.others() : null,
        false);
  }

  static FieldShape ofSchema(JsonNode schema) {
    if (schema == null
        || !schema.isObject()
        || schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
      return FieldShape.SCALAR;
    }
    String type = schema.path("type").asText("");
    if (type.equals("array")) {
      FieldShape item = ofSchema(schema.get("items"));
      return switch (schema.path("x-kubernetes-list-type").asText("atomic")) {
        case "set" -> new FieldShape.Items(item, FieldShape.ListKind.SET, List.of());
        case "map" -> {
          List<String> keys = new ArrayList<>();
          schema.path("x-kubernetes-list-map-keys").forEach(k -> keys.add(k.asText()));
          yield new FieldShape.Items(item, FieldShape.ListKind.MAP, keys);
        }
        default -> new FieldShape.Items(item, FieldShape.ListKind.ATOMIC, List.of());
      };
    }
    boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    boolean embedded = schema.path("x-kubernetes-embedded-resource").asBoolean(false);
    if (!type.equals("object") && !schema.has("properties") && !embedded) {
      return preserve ? FieldShape.DEDUCED : FieldShape.SCALAR;
    }
    boolean atomic = schema.path("x-kubernetes-map-type").asText("").equals("atomic");
    JsonNode additional = schema.get("additionalProperties");
    FieldShape others =
        additional != null && additional.isObject()
            ? ofSchema(additional)
            : preserve || (additional != null && additional.asBoolean(false))
                ? FieldShape.DEDUCED
                : null;
    JsonNode properties = schema.path("properties");
    Map<String, FieldShape> fields = new ConcurrentHashMap<>();
    return new FieldShape.Fields(
        key -> {
          if (properties.has(key)) {
            return fields.computeIfAbsent(key, k -> ofSchema(properties.get(k)));
          }
          if (embedded && (key.equals("apiVersion") || key.equals("kind"))) {
            return FieldShape.SCALAR;
          }
          return embedded && key.equals("metadata") ? OBJECT_META : null;
        },
        others,
        atomic);
  }

  /** A fabric8 model type's shape. */
  static FieldShape ofType(JavaType type) {
    if (type.isMapLikeType()) {
      return new FieldShape.Fields(k -> null, ofType(type.getContentType()), false);
    }
    if (type.isContainerType()) {
      return new FieldShape.Items(
          ofType(type.getContentType()), FieldShape.ListKind.ATOMIC, List.of());
    }
    Class<?> raw = type.getRawClass();
    if (raw == Object.class || JsonNode.class.isAssignableFrom(raw)) {
      return FieldShape.DEDUCED;
    }
    JsonDeserialize custom = raw.getAnnotation(JsonDeserialize.class);
    if (!raw.getPackageName().startsWith("io.fabric8.kubernetes.api.model")
        || custom == null
        || custom.using() != JsonDeserializer.None.class) {
      return FieldShape.SCALAR;
    }
    FieldShape cached = BY_CLASS.get(type);
    if (cached != null) {
      return cached;
    }
    BeanDescription bean = INTROSPECTION.getDeserializationConfig().introspect(type);
    Map<String, JavaType> properties = new HashMap<>();
    for (BeanPropertyDefinition property : bean.findProperties()) {
      if (!FieldModels.isCatchAll(property)) {
        properties.put(property.getName(), property.getPrimaryType());
      }
    }
    if (properties.isEmpty()) {
      // free-form, such as a managedFields entry's fieldsV1
      return FieldShape.DEDUCED;
    }
    Map<String, FieldShape> fields = new ConcurrentHashMap<>();
    FieldShape shape =
        new FieldShape.Fields(
            key -> {
              JavaType field = properties.get(key);
              if (field == null) {
                return null;
              }
              return fields.computeIfAbsent(
                  key,
                  k -> {
                    FieldShape s = ofType(field);
                    FieldShape.Items keyedList = BUILT_IN_LISTS.get(k);
                    return s instanceof FieldShape.Items items && keyedList != null
                        ? new FieldShape.Items(items.item(), keyedList.kind(), keyedList.keys())
                        : s;
                  });
            },
            null,
            false);
    BY_CLASS.putIfAbsent(type, shape);
    return shape;
  }

  private static FieldShape.Items keyed(String... keys) {
    return new FieldShape.Items(FieldShape.SCALAR, FieldShape.ListKind.MAP, List.of(keys));
  }
}
