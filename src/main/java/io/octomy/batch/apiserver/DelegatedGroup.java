package io.octomy.batch.apiserver;

import java.util.List;
import java.util.Map;

/**
 * An API group version the embedded server answers by handing its requests over, as a real API
 * server hands the requests of an aggregated API to the server its APIService names. The embedded
 * server authenticates the request (the one bearer token) and serves discovery from {@link
 * #resources()}; everything under {@code /apis/GROUP/VERSION/} goes to {@link #serve}.
 */
public interface DelegatedGroup {

  /** One resource of the group, for discovery. */
  record Resource(String name, String kind, boolean namespaced, List<String> verbs) {
    public Resource {
      verbs = List.copyOf(verbs);
    }
  }

  /** One answer. */
  record Reply(int status, String contentType, byte[] body) {}

  String group();

  String version();

  List<Resource> resources();

  /**
   * Answers one request.
   *
   * @param path the path below {@code /apis/GROUP/VERSION}, starting with {@code /}
   */
  Reply serve(String method, String path, Map<String, String> query, String accept, byte[] body);
}
