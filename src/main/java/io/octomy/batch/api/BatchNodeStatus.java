package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;

/** Written only by the node's own agent: what the machine has, offers, holds and uses. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BatchNodeStatus {

  /**
   * Measured capacity (octomy.io/cpu-milli, octomy.io/memory-bytes, octomy.io/gpu, bounded by the
   * cgroup) plus spec.resources.
   */
  private Map<String, Long> capacity;

  /** Capacity scaled by the mode table, for own and for others' work. */
  private NodeOffers offer;

  /** Sum of the requests of jobs admitted to this node and not finished. */
  private Map<String, Long> allocated;

  /** Measured usage of the whole host. */
  private Map<String, Long> usage;

  /**
   * Per-job measurements of the jobs this agent runs or ran (Process executor) or measures (Pod
   * executor).
   */
  private List<NodeJob> jobs;

  /**
   * When the agent last reported (RFC 3339). A node whose heartbeat is older than the policy's
   * nodeHeartbeatTimeout is not ready.
   */
  private String heartbeatTime;

  /** Ready: the agent is alive and reporting. */
  private List<Condition> conditions;

  /**
   * The agent that reports for this node, when it runs jobs as processes: the id kept in its state
   * directory. Another such agent given this node's name refuses to start while this one reports,
   * rather than run its jobs twice.
   */
  private String agent;

  /**
   * Where this node's agent serves the output of the jobs it runs as processes, for kubectl octomy
   * logs; absent when it serves none (a Pod node, or an agent started with --logs-port -1).
   */
  private LogEndpoint logEndpoint;

  public LogEndpoint getLogEndpoint() {
    return logEndpoint;
  }

  public void setLogEndpoint(LogEndpoint logEndpoint) {
    this.logEndpoint = logEndpoint;
  }

  public String getAgent() {
    return agent;
  }

  public void setAgent(String agent) {
    this.agent = agent;
  }

  public Map<String, Long> getCapacity() {
    return capacity;
  }

  public void setCapacity(Map<String, Long> capacity) {
    this.capacity = capacity;
  }

  public NodeOffers getOffer() {
    return offer;
  }

  public void setOffer(NodeOffers offer) {
    this.offer = offer;
  }

  public Map<String, Long> getAllocated() {
    return allocated;
  }

  public void setAllocated(Map<String, Long> allocated) {
    this.allocated = allocated;
  }

  public Map<String, Long> getUsage() {
    return usage;
  }

  public void setUsage(Map<String, Long> usage) {
    this.usage = usage;
  }

  public List<NodeJob> getJobs() {
    return jobs;
  }

  public void setJobs(List<NodeJob> jobs) {
    this.jobs = jobs;
  }

  public String getHeartbeatTime() {
    return heartbeatTime;
  }

  public void setHeartbeatTime(String heartbeatTime) {
    this.heartbeatTime = heartbeatTime;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(BatchNodeStatus.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(BatchNodeStatus.class).hash(this);
  }
}
