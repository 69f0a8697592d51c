package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.Map;
import java.util.Objects;

/** How much of itself a machine offers, and how it runs jobs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BatchNodeSpec {

  /**
   * What the node offers other nodes' work: Interactive, Background, Drone or Off. Changing it
   * never disturbs running jobs; it changes what is admitted next.
   */
  private NodeMode mode;

  /** The same, for jobs whose spec.origin is this node. Unset means the same as mode. */
  private NodeMode ownMode;

  /**
   * Pod (a Kubernetes node: jobs run as Pods bound to it) or Process (the agent runs jobs as local
   * processes).
   */
  private Executor executor;

  /** Capacity the agent cannot measure, like example.com/su2-processes: 16. Whole numbers >= 0. */
  @Size(max = ResourceNames.MAX_PER_MAP)
  @ValidationRule(
      value =
          "self.all(k, size(k) <= "
              + ResourceNames.MAX_LENGTH
              + " && k.matches('"
              + CelText.RESOURCE_NAME
              + "'))",
      message = "resource names carry a domain: write example.com/su2-processes, not su2-processes")
  @JsonDeserialize(using = QuantityMapDeserializer.class)
  private Map<String, Long> resources;

  public NodeMode getMode() {
    return mode;
  }

  public void setMode(NodeMode mode) {
    this.mode = mode;
  }

  public NodeMode getOwnMode() {
    return ownMode;
  }

  public void setOwnMode(NodeMode ownMode) {
    this.ownMode = ownMode;
  }

  public Executor getExecutor() {
    return executor;
  }

  public void setExecutor(Executor executor) {
    this.executor = executor;
  }

  public Map<String, Long> getResources() {
    return resources;
  }

  public void setResources(Map<String, Long> resources) {
    this.resources = resources;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BatchNodeSpec s
        && mode == s.mode
        && ownMode == s.ownMode
        && executor == s.executor
        && Objects.equals(resources, s.resources);
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, ownMode, executor, resources);
  }
}
