package io.octomy.batch.controller.aggregated;

import java.util.List;
import java.util.Map;

/**
 * Who asks, as the API server authenticated them: their user name, uid, groups and extra
 * attributes, passed on unchanged to each SubjectAccessReview.
 */
public record Caller(
    String user, String uid, List<String> groups, Map<String, List<String>> extra) {

  public Caller {
    groups = List.copyOf(groups);
    extra = Map.copyOf(extra);
  }
}
