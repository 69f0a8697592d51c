package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Reads the few protobuf request bodies kubectl sends: from 1.33 on, typed commands such as {@code
 * kubectl create namespace}, {@code create configmap} and {@code create secret} send {@code
 * application/vnd.kubernetes.protobuf}. The body is the "k8s\0" envelope ({@code runtime.Unknown})
 * around the object's message; field numbers below are those of {@code
 * k8s.io/api/core/v1/generated.proto} and {@code apimachinery .../meta/v1/generated.proto}. Other
 * kinds are answered 415, and nothing here is ever written as protobuf: answers are JSON, which
 * clients accept for every type.
 */
final class ProtobufBodies {

  static final String CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
  private static final byte[] MAGIC = {'k', '8', 's', 0};
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private ProtobufBodies() {}

  static boolean isProtobuf(String contentType) {
    return contentType != null && contentType.startsWith(CONTENT_TYPE);
  }

  /** Decodes a Namespace, ConfigMap or Secret. */
  static ObjectNode decode(byte[] body) {
    if (body.length < 4 || !Arrays.equals(Arrays.copyOf(body, 4), MAGIC)) {
      throw ApiException.badRequest("protobuf body without the k8s envelope");
    }
    try {
      String apiVersion = "";
      String kind = "";
      byte[] raw = new byte[0];
      CodedInputStream in = CodedInputStream.newInstance(body, 4, body.length - 4);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case 1 -> {
            CodedInputStream typeMeta = CodedInputStream.newInstance(in.readByteArray());
            for (int t = typeMeta.readTag(); t != 0; t = typeMeta.readTag()) {
              switch (WireFormat.getTagFieldNumber(t)) {
                case 1 -> apiVersion = typeMeta.readString();
                case 2 -> kind = typeMeta.readString();
                default -> typeMeta.skipField(t);
              }
            }
          }
          case 2 -> raw = in.readByteArray();
          default -> in.skipField(tag);
        }
      }
      ObjectNode object = F.objectNode();
      object.put("apiVersion", apiVersion).put("kind", kind);
      CodedInputStream msg = CodedInputStream.newInstance(raw);
      for (int tag = msg.readTag(); tag != 0; tag = msg.readTag()) {
        int field = WireFormat.getTagFieldNumber(tag);
        if (field == 1) {
          object.set("metadata", objectMeta(msg.readByteArray()));
        } else if (kind.equals("ConfigMap") && field == 2) {
          mapEntry(msg.readByteArray(), object.withObjectProperty("data"), false);
        } else if (kind.equals("ConfigMap") && field == 3) {
          mapEntry(msg.readByteArray(), object.withObjectProperty("binaryData"), true);
        } else if (kind.equals("Secret") && field == 2) {
          mapEntry(msg.readByteArray(), object.withObjectProperty("data"), true);
        } else if (kind.equals("Secret") && field == 3) {
          object.put("type", msg.readString());
        } else if (kind.equals("Secret") && field == 4) {
          mapEntry(msg.readByteArray(), object.withObjectProperty("stringData"), false);
        } else if ((kind.equals("ConfigMap") && field == 4)
            || (kind.equals("Secret") && field == 5)) {
          object.put("immutable", msg.readBool());
        } else if (kind.equals("Namespace") || kind.equals("ConfigMap") || kind.equals("Secret")) {
          msg.skipField(tag);
        } else {
          throw new ApiException(
              415,
              "UnsupportedMediaType",
              "protobuf bodies are accepted only for "
                  + "Namespace, ConfigMap and Secret; send "
                  + kind
                  + " as JSON");
        }
      }
      return object;
    } catch (IOException e) {
      throw ApiException.badRequest("cannot read the protobuf body: " + e.getMessage());
    }
  }

  private static ObjectNode objectMeta(byte[] bytes) throws IOException {
    ObjectNode meta = F.objectNode();
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        // a Go client writes every string field, empty ones too; JSON would leave them out
        case 1 -> putNonEmpty(meta, "name", in.readString());
        case 2 -> putNonEmpty(meta, "generateName", in.readString());
        case 3 -> putNonEmpty(meta, "namespace", in.readString());
        case 11 -> mapEntry(in.readByteArray(), meta.withObjectProperty("labels"), false);
        case 12 -> mapEntry(in.readByteArray(), meta.withObjectProperty("annotations"), false);
        case 14 -> meta.withArrayProperty("finalizers").add(in.readString());
        default -> in.skipField(tag);
      }
    }
    return meta;
  }

  private static void putNonEmpty(ObjectNode into, String field, String value) {
    if (!value.isEmpty()) {
      into.put(field, value);
    }
  }

  /**
   * One {@code map<string, string|bytes>} entry (key = 1, value = 2); bytes become base64 as in
   * JSON.
   */
  private static void mapEntry(byte[] bytes, ObjectNode into, boolean binary) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    String key = "";
    String value = "";
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> key = in.readString();
        case 2 ->
            value =
                binary ? Base64.getEncoder().encodeToString(in.readByteArray()) : in.readString();
        default -> in.skipField(tag);
      }
    }
    into.put(key, value);
  }
}
