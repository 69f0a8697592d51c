package io.octomy.batch.apiserver;

import java.util.Arrays;
import java.util.Optional;

/**
 * A resource URL taken apart: {@code /api/v1/namespaces/NS/pods/NAME/status} or {@code
 * /apis/GROUP/VERSION[/namespaces/NS]/PLURAL[/NAME[/SUBRESOURCE]]}.
 *
 * @param namespace {@code null} for cluster-scoped requests and for lists across namespaces
 * @param name {@code null} for collection requests
 * @param subresource {@code null}, or e.g. {@code status}
 */
record RequestPath(
    String group,
    String version,
    String plural,
    String namespace,
    String name,
    String subresource) {

  /** Parses a resource path; empty for discovery and other non-resource paths. */
  static Optional<RequestPath> parse(String path, ResourceRegistry registry) {
    String[] parts =
        Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
    String group;
    String version;
    int i;
    if (parts.length >= 3 && parts[0].equals("api")) {
      group = "";
      version = parts[1];
      i = 2;
    } else if (parts.length >= 4 && parts[0].equals("apis")) {
      group = parts[1];
      version = parts[2];
      i = 3;
    } else {
      return Optional.empty();
    }
    String[] rest = Arrays.copyOfRange(parts, i, parts.length);
    // /namespaces/NS/PLURAL... when PLURAL is a namespaced resource, else the namespaces resource
    // itself
    if (rest.length >= 3
        && rest[0].equals("namespaces")
        && registry.find(group, version, rest[2]).map(ResourceType::namespaced).orElse(false)) {
      if (rest.length > 5) {
        return Optional.empty();
      }
      return Optional.of(
          new RequestPath(group, version, rest[2], rest[1], at(rest, 3), at(rest, 4)));
    }
    if (rest.length > 3) {
      return Optional.empty();
    }
    return Optional.of(new RequestPath(group, version, rest[0], null, at(rest, 1), at(rest, 2)));
  }

  private static String at(String[] a, int i) {
    return i < a.length ? a[i] : null;
  }
}
