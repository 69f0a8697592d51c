package io.octomy.batch.agent;

import java.util.regex.Pattern;

/**
 * Identifies one BatchJob run on this node. The UID is part of the key: a job deleted and
 * re-created under the same name is a new job and runs again, while the same UID never runs twice.
 *
 * @param namespace {@code metadata.namespace}
 * @param name {@code metadata.name}
 * @param uid {@code metadata.uid}
 */
public record RunKey(String namespace, String name, String uid) {

  // Kubernetes names and UIDs never hold these; checking keeps the key safe as a path segment.
  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  public RunKey {
    check("namespace", namespace);
    check("name", name);
    check("uid", uid);
  }

  private static void check(String what, String value) {
    if (value == null || !SEGMENT.matcher(value).matches() || value.contains("..")) {
      throw new IllegalArgumentException(
          "job "
              + what
              + " '"
              + value
              + "' is not a Kubernetes name (letters, digits, '.', '_', '-')");
    }
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
  }
}
