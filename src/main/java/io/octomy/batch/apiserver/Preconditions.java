package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;

/**
 * What a write demands of the stored object before it happens: a delete's {@code
 * DeleteOptions.preconditions} (uid, resourceVersion), and the uid an update carries. A mismatch is
 * the real server's 409 Conflict, so a client never deletes or overwrites a newer object of the
 * same name by mistake.
 *
 * @param uid empty when not demanded
 * @param resourceVersion empty when not demanded
 */
record Preconditions(String uid, String resourceVersion) {

  static final Preconditions NONE = new Preconditions("", "");

  /** Namespaces a real server refuses to delete (403). */
  static final Set<String> PROTECTED_NAMESPACES =
      Set.of("default", "kube-system", "kube-public", "kube-node-lease");

  void check(ResourceType type, ObjectNode current) {
    requireUid(type, current, uid);
    String stored = current.path("metadata").path("resourceVersion").asText();
    if (!resourceVersion.isEmpty() && !resourceVersion.equals(stored)) {
      throw conflict(
          type,
          current,
          "the ResourceVersion in the precondition ("
              + resourceVersion
              + ") does not match the ResourceVersion in record ("
              + stored
              + "). The object might have been modified");
    }
  }

  /** An update or delete that names a uid reaches only the object with that uid. */
  static void requireUid(ResourceType type, ObjectNode current, String uid) {
    String stored = current.path("metadata").path("uid").asText();
    if (!uid.isEmpty() && !uid.equals(stored)) {
      throw conflict(
          type,
          current,
          "Precondition failed: UID in precondition: " + uid + ", UID in object meta: " + stored);
    }
  }

  private static ApiException conflict(ResourceType type, ObjectNode current, String why) {
    String name = current.path("metadata").path("name").asText();
    return new ApiException(
        409,
        "Conflict",
        "Operation cannot be fulfilled on " + type.qualifiedPlural() + " \"" + name + "\": " + why,
        type.plural(),
        name,
        List.of());
  }
}
