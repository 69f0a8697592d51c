package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.Map;

/** How much of itself a machine offers, and how it runs jobs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BatchNodeSpec {

  /** The mode of a node whose spec does not say: what the agent's --mode defaults to. */
  public static final NodeMode DEFAULT_MODE = NodeMode.Drone;

  /** The executor of a node whose spec does not say: what the agent's --executor defaults to. */
  public static final Executor DEFAULT_EXECUTOR = Executor.Process;

  /**
   * What the node offers other nodes' work: Interactive, Background, Drone or Off (default Drone).
   * Changing it never disturbs running jobs; it changes what is admitted next.
   */
  @Default("Drone")
  private NodeMode mode;

  /** The same, for jobs whose spec.origin is this node. Unset means the same as mode. */
  private NodeMode ownMode;

  /**
   * Pod (a Kubernetes node: jobs run as Pods bound to it) or Process (the agent runs jobs as local
   * processes; the default). This one field decides who runs a job admitted here; an agent that
   * cannot run it says so in the node's Ready condition, and nothing is admitted here meanwhile.
   */
  @Default("Process")
  private Executor executor;

  /** Capacity the agent cannot measure, like example.com/su2-processes: 16. Whole numbers >= 0. */
  @Size(max = ResourceNames.MAX_PER_MAP)
  @ValidationRule(
      value = ResourceNames.CEL_EVERY_KEY,
      messageExpression = ResourceNames.CEL_EVERY_KEY_MESSAGE,
      message =
          "resource names are a DNS domain, a slash and a name, like example.com/su2-processes")
  @JsonDeserialize(using = QuantityMapDeserializer.class)
  private Map<String, Long> resources;

  public NodeMode getMode() {
    return mode;
  }

  /**
   * The mode in force for other nodes' work: the one place the controller and the agent read it,
   * with the CRD's default for a spec that has none (API servers that do not apply defaults).
   */
  public static NodeMode modeOf(BatchNodeSpec spec) {
    return spec == null || spec.mode == null ? DEFAULT_MODE : spec.mode;
  }

  /** The mode in force for the node's own work: ownMode, or the mode when it is unset. */
  public static NodeMode ownModeOf(BatchNodeSpec spec) {
    return spec == null || spec.ownMode == null ? modeOf(spec) : spec.ownMode;
  }

  /** Who runs jobs admitted to the node, with the CRD's default. */
  public static Executor executorOf(BatchNodeSpec spec) {
    return spec == null || spec.executor == null ? DEFAULT_EXECUTOR : spec.executor;
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

  // compared property by property over what the JSON holds, so a new field needs no other change
  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchNodeSpec.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchNodeSpec.class).hash(this);
  }
}
