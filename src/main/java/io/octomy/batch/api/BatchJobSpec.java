package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.octomy.batch.vocabulary.LabelRules;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.List;
import java.util.Map;

/** What a person asks for: what to run, what it needs, and what must happen first. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonDeserialize(using = LenientSpecDeserializer.class)
public class BatchJobSpec {

  /** Upper bounds that keep one object small; the Java validator uses the same numbers. */
  public static final int MAX_AFTER = 64;

  public static final int MAX_LOCKS = 16;

  /** The largest ttlSecondsAfterFinished: an int32, as in Kubernetes' Job. */
  public static final int MAX_TTL_SECONDS = Integer.MAX_VALUE;

  public static final int MAX_LOCK_KEY_LENGTH = 253;

  /** The most replicas a gang may ask for: each is named in status.replicaNodes. */
  public static final int MAX_REPLICAS = 1000;

  /** The most retries a job may ask for: each one is kept in {@code status.runs}. */
  public static final int MAX_BACKOFF_LIMIT = 20;

  /** The longest run a deadline may allow: one year, in seconds. */
  public static final long MAX_ACTIVE_DEADLINE_SECONDS = 31_536_000L;

  /**
   * Job type, like mesh-export. Optional. Drift records (BatchJobProfile) are kept per namespace
   * and type.
   */
  @Size(max = 63)
  @Pattern(ResourceNames.DNS_LABEL_REGEX)
  private String type;

  /**
   * Concurrency group (a "product"), like simulator. Optional. At most the policy's maxRunning jobs
   * of one group in a namespace are admitted or running at once (default 1).
   */
  @Size(max = 63)
  @Pattern(ResourceNames.DNS_LABEL_REGEX)
  private String group;

  /**
   * The BatchNode whose own work this is. Optional. On that node the job is measured against the
   * node's ownMode offer instead of its mode offer.
   */
  @Size(max = 253)
  private String origin;

  /**
   * BatchJobs in the same namespace that must succeed before this one starts. A failed, skipped or
   * rejected one skips this job; a missing one is waited for.
   */
  @Size(max = MAX_AFTER)
  @ValidationRule(
      value =
          "self.all(n, size(n) <= 253 && n.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'))",
      message =
          "after lists BatchJob names: lower-case letters, digits, '-' and '.', like preprocess-41")
  private List<@Size(max = 253) String> after;

  /**
   * Exclusive named locks, scoped to the namespace, like subject/ernie. While an admitted or
   * running job holds a key, no other job with that key is admitted.
   */
  @Size(max = MAX_LOCKS)
  @ValidationRule(
      value =
          "self.all(k, size(k) <= "
              + MAX_LOCK_KEY_LENGTH
              + " && k.matches('^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?(/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)*$'))",
      message =
          "lock keys are segments of letters, digits, '-', '_' and '.' joined by '/', like subject/ernie")
  private List<@Size(max = MAX_LOCK_KEY_LENGTH) String> locks;

  /**
   * Held when true: a Queued job takes no part in admission (reason Held) until this is set false
   * or removed; it then keeps its place by the time it was queued. An Admitted or Running job is
   * not stopped by it: delete the job to stop it.
   */
  private Boolean suspend;

  /**
   * Runs that exit non-zero retried before the job is Failed, from 0 (the default: no retry) to 20.
   * A retry is a new run with a new decision, after a back-off that doubles per failed run.
   */
  @Min(0)
  @Max(MAX_BACKOFF_LIMIT)
  private Integer backoffLimit;

  /**
   * Seconds a run may last, from 1 to 31536000. A run still going after that long is stopped and
   * the job fails with reason DeadlineExceeded, without retry. Optional; without it a run may last
   * as long as it likes.
   */
  @Min(1)
  @Max(MAX_ACTIVE_DEADLINE_SECONDS)
  private Long activeDeadlineSeconds;

  /**
   * Labels a BatchNode must carry (metadata.labels, every pair) for this job to be placed there,
   * like disk: ssd. Optional; without it any node may run the job.
   */
  @Size(max = LabelRules.MAX_SELECTOR_PAIRS)
  @ValidationRule(
      value = LabelRules.CEL_SELECTOR,
      message =
          "nodeSelector maps label keys (an optional DNS prefix and '/', then at most 63 letters,"
              + " digits, '-', '_' and '.') to values of at most 63 such characters, like"
              + " {disk: ssd}")
  private Map<String, @Size(max = LabelRules.MAX_NAME_LENGTH) String> nodeSelector;

  /**
   * Seconds after the job ended (Succeeded, Failed, Skipped or Rejected, from status.finishedAt)
   * when the controller deletes it, with its Pod; 0 deletes it as soon as it ends. Optional;
   * without it the policy's finishedJobTTL applies, and without that the job is kept.
   */
  @Min(0)
  @Max(MAX_TTL_SECONDS)
  private Integer ttlSecondsAfterFinished;

  /**
   * Makes this job an array: count items, each a BatchJob of its own named NAME-0 to NAME-(count-1)
   * with this spec (without array) and OCTOMY_ARRAY_INDEX in every container's environment, at most
   * maxRunning of them unfinished at once. This job runs nothing itself: it is Succeeded once every
   * item succeeded, Failed once one failed past its retries, and deleting it deletes its items.
   */
  private ArraySpec array;

  /**
   * Makes this job a gang: replicas copies of its request, placed together in one decision on one
   * or several nodes or not at all, each started with OCTOMY_REPLICA_INDEX, OCTOMY_REPLICA_COUNT
   * and OCTOMY_REPLICA_NODES. The job runs when all replicas started, succeeds when all exit 0 and
   * fails (or retries as a whole) when one fails, stopping the others. Optional; absent means 1.
   */
  @Min(1)
  @Max(MAX_REPLICAS)
  private Integer replicas;

  /**
   * Requests (reserved) and limits (measured against, never enforced) per resource name. The
   * service class follows from them.
   */
  private Resources resources;

  /**
   * A PodTemplateSpec: what runs once admitted. On a Process node the agent runs the first
   * container's command, args, env and workingDir as a local process.
   */
  @Required
  @PreserveUnknownFields
  @SchemaFrom(type = OpenObject.class)
  private PodTemplateSpec template;

  /**
   * Fields as written that could not be read (wrong type) or are unknown; never serialized back.
   */
  @JsonIgnore private final ObjectNode malformed = JsonNodeFactory.instance.objectNode();

  @JsonIgnore
  public ObjectNode malformed() {
    return malformed;
  }

  public String getType() {
    return type;
  }

  public void setType(String type) {
    this.type = type;
  }

  public String getGroup() {
    return group;
  }

  public void setGroup(String group) {
    this.group = group;
  }

  public String getOrigin() {
    return origin;
  }

  public void setOrigin(String origin) {
    this.origin = origin;
  }

  public List<String> getAfter() {
    return after;
  }

  public void setAfter(List<String> after) {
    this.after = after;
  }

  public List<String> getLocks() {
    return locks;
  }

  public void setLocks(List<String> locks) {
    this.locks = locks;
  }

  public Boolean getSuspend() {
    return suspend;
  }

  public void setSuspend(Boolean suspend) {
    this.suspend = suspend;
  }

  /** Whether the job is held: {@code suspend} is true. */
  @JsonIgnore
  public boolean suspended() {
    return Boolean.TRUE.equals(suspend);
  }

  public Integer getBackoffLimit() {
    return backoffLimit;
  }

  public void setBackoffLimit(Integer backoffLimit) {
    this.backoffLimit = backoffLimit;
  }

  /** Failed runs retried before the job is Failed: {@code backoffLimit}, 0 when unset. */
  @JsonIgnore
  public int retries() {
    return backoffLimit == null ? 0 : Math.max(0, backoffLimit);
  }

  public Long getActiveDeadlineSeconds() {
    return activeDeadlineSeconds;
  }

  public void setActiveDeadlineSeconds(Long activeDeadlineSeconds) {
    this.activeDeadlineSeconds = activeDeadlineSeconds;
  }

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public Integer getTtlSecondsAfterFinished() {
    return ttlSecondsAfterFinished;
  }

  public void setTtlSecondsAfterFinished(Integer ttlSecondsAfterFinished) {
    this.ttlSecondsAfterFinished = ttlSecondsAfterFinished;
  }

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  /** How many copies of the request run together: {@code replicas}, or 1 when absent. */
  public int replicaCount() {
    return replicas == null ? 1 : replicas;
  }

  public ArraySpec getArray() {
    return array;
  }

  public void setArray(ArraySpec array) {
    this.array = array;
  }

  /** Whether this job is an array's parent: it has {@code array}. */
  @JsonIgnore
  public boolean arrayJob() {
    return array != null;
  }

  public Resources getResources() {
    return resources;
  }

  public void setResources(Resources resources) {
    this.resources = resources;
  }

  public PodTemplateSpec getTemplate() {
    return template;
  }

  public void setTemplate(PodTemplateSpec template) {
    this.template = template;
  }

  // compared property by property over what the JSON holds, so a new field needs no other change
  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchJobSpec.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchJobSpec.class).hash(this);
  }
}
