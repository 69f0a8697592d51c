package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.octomy.batch.vocabulary.LabelRules;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.List;
import java.util.Map;

/** Whose jobs a queue holds, where it sits in the tree, its weight and its caps. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.min) || !has(self.max) || self.min.all(k, !(k in self.max) || self.min[k] <= self.max[k])",
    message = "a min is above its max; lower the min or raise the max so that min <= max")
public class BatchQueueSpec {

  /** The weight of a queue whose spec does not say. */
  public static final long DEFAULT_WEIGHT = 1;

  /**
   * The most namespaces one queue may list (a selector takes any number): bounded, with each name's
   * length, so a real API server's cost estimate of the CEL rule stays within its budget.
   */
  public static final int MAX_NAMESPACES = 128;

  /** The largest weight: far beyond any ratio of shares a pool is split by. */
  public static final long MAX_WEIGHT = 1_000_000;

  /**
   * Namespaces whose BatchJobs this queue holds. A namespace claimed by two queues is an error: its
   * jobs wait (reason QueueConflict) until one queue lets it go. A namespace no queue claims is in
   * the implicit default queue.
   */
  @Size(max = MAX_NAMESPACES)
  @ValidationRule(
      value = "self.all(n, size(n) <= 63 && n.matches('" + ResourceNames.DNS_LABEL_REGEX + "'))",
      message = "namespaces are DNS labels: lower-case letters, digits and '-', like team-a")
  private List<@Size(max = 63) String> namespaces;

  /** Namespaces whose labels hold every pair of matchLabels are held by this queue too. */
  private QueueNamespaceSelector namespaceSelector;

  /**
   * Another BatchQueue this one shares with its siblings. Queues form a tree; a parent with no
   * namespaces is a cohort. A cycle of parents is rejected: the queues in it hold no job.
   */
  @Size(max = 253)
  @Pattern(ResourceNames.DNS_SUBDOMAIN_REGEX)
  private String parent;

  /**
   * The share of what the pool offers now, among sibling queues that have work: a queue of weight 2
   * deserves twice what a sibling of weight 1 does. A whole number of at least 1 (default 1).
   */
  @Default("1")
  @Min(1)
  @Max(MAX_WEIGHT)
  private Long weight;

  /**
   * A hard cap on the sum of the requests of this queue's (and its children's) admitted and running
   * jobs, per resource name (like example.com/cfd-cores: 64). Whole numbers >= 0.
   */
  @Size(max = ResourceNames.MAX_PER_MAP)
  @ValidationRule(
      value = ResourceNames.CEL_EVERY_KEY,
      messageExpression = ResourceNames.CEL_EVERY_KEY_MESSAGE,
      message = "resource names are a DNS domain, a slash and a name, like example.com/cfd-cores")
  @JsonDeserialize(using = QuantityMapDeserializer.class)
  private Map<String, Long> max;

  /**
   * What this queue gets back first as running jobs end, per resource name; nothing is killed for
   * it. Each at most its max. Whole numbers >= 0.
   */
  @Size(max = ResourceNames.MAX_PER_MAP)
  @ValidationRule(
      value = ResourceNames.CEL_EVERY_KEY,
      messageExpression = ResourceNames.CEL_EVERY_KEY_MESSAGE,
      message = "resource names are a DNS domain, a slash and a name, like example.com/cfd-cores")
  @JsonDeserialize(using = QuantityMapDeserializer.class)
  private Map<String, Long> min;

  /**
   * Labels a BatchNode must carry (every pair) for this queue's jobs, and its children's, to be
   * placed there, like pool: gpu: the nodes of a partition. Added to each job's own
   * spec.nodeSelector; optional, without it the queue's jobs may run on any node.
   */
  @Size(max = LabelRules.MAX_SELECTOR_PAIRS)
  @ValidationRule(
      value = LabelRules.CEL_SELECTOR,
      message =
          "nodeSelector maps label keys (an optional DNS prefix and '/', then at most 63 letters,"
              + " digits, '-', '_' and '.') to values of at most 63 such characters, like"
              + " {pool: gpu}")
  private Map<String, @Size(max = LabelRules.MAX_NAME_LENGTH) String> nodeSelector;

  /** The weight in force: the CRD's default for a spec that has none, and never below 1. */
  public static long weightOf(BatchQueueSpec spec) {
    return spec == null || spec.weight == null ? DEFAULT_WEIGHT : Math.max(1, spec.weight);
  }

  public List<String> getNamespaces() {
    return namespaces;
  }

  public void setNamespaces(List<String> namespaces) {
    this.namespaces = namespaces;
  }

  public QueueNamespaceSelector getNamespaceSelector() {
    return namespaceSelector;
  }

  public void setNamespaceSelector(QueueNamespaceSelector namespaceSelector) {
    this.namespaceSelector = namespaceSelector;
  }

  public String getParent() {
    return parent;
  }

  public void setParent(String parent) {
    this.parent = parent;
  }

  public Long getWeight() {
    return weight;
  }

  public void setWeight(Long weight) {
    this.weight = weight;
  }

  public Map<String, Long> getMax() {
    return max;
  }

  public void setMax(Map<String, Long> max) {
    this.max = max;
  }

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public Map<String, Long> getMin() {
    return min;
  }

  public void setMin(Map<String, Long> min) {
    this.min = min;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchQueueSpec.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchQueueSpec.class).hash(this);
  }
}
