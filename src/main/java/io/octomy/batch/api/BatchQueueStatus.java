package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;

/** What a queue holds and how it stands against its share; written on change only. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BatchQueueStatus {

  /** The sum of the requests its admitted and running jobs hold now, per resource name. */
  private Map<String, Long> usage;

  /**
   * Its dominant share of what the pool offers now against the share it deserves among siblings
   * with work, like 0.25/0.50.
   */
  private String share;

  /**
   * The fair-share term its Queued jobs add to their effective priority now, in priority points:
   * priority.fairShareWeight for a queue whose subtree and ancestors hold and ran nothing, less as
   * its share grows past what it deserves (kubectl octomy why shows it per job as "Fair share:").
   */
  private Long fairShareTerm;

  /**
   * What its subtree ran, per resource name: request x seconds, each second weighed by how long ago
   * it was (halved every fairShare.usageHalfLife), as of decayedUsageAt. Kept here so a restarted
   * controller goes on from it.
   */
  private Map<String, Long> decayedUsage;

  /** When decayedUsage was taken (RFC 3339). */
  private String decayedUsageAt;

  /** How many of its jobs are Queued. */
  private Long pending;

  /** How many of its jobs are Admitted or Running. */
  private Long admitted;

  /** Ready (its spec is in force) or not, with the reason: a namespace conflict or a cycle. */
  private List<Condition> conditions;

  public Map<String, Long> getUsage() {
    return usage;
  }

  public void setUsage(Map<String, Long> usage) {
    this.usage = usage;
  }

  public Map<String, Long> getDecayedUsage() {
    return decayedUsage;
  }

  public void setDecayedUsage(Map<String, Long> decayedUsage) {
    this.decayedUsage = decayedUsage;
  }

  public String getDecayedUsageAt() {
    return decayedUsageAt;
  }

  public void setDecayedUsageAt(String decayedUsageAt) {
    this.decayedUsageAt = decayedUsageAt;
  }

  public String getShare() {
    return share;
  }

  public void setShare(String share) {
    this.share = share;
  }

  public Long getFairShareTerm() {
    return fairShareTerm;
  }

  public void setFairShareTerm(Long fairShareTerm) {
    this.fairShareTerm = fairShareTerm;
  }

  public Long getPending() {
    return pending;
  }

  public void setPending(Long pending) {
    this.pending = pending;
  }

  public Long getAdmitted() {
    return admitted;
  }

  public void setAdmitted(Long admitted) {
    this.admitted = admitted;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchQueueStatus.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchQueueStatus.class).hash(this);
  }
}
