package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Size;
import java.util.Map;
import java.util.Objects;

/** Namespaces by their labels: those whose labels hold every pair. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueueNamespaceSelector {

  /** Label to value; a namespace is selected when its labels hold every pair. */
  @Size(max = 32)
  private Map<String, String> matchLabels;

  public Map<String, String> getMatchLabels() {
    return matchLabels;
  }

  public void setMatchLabels(Map<String, String> matchLabels) {
    this.matchLabels = matchLabels;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QueueNamespaceSelector s && Objects.equals(matchLabels, s.matchLabels);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(matchLabels);
  }
}
