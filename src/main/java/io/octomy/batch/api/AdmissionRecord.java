package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Size;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an admitted job holds, recorded when it is admitted: capacity, locks, group slot and budget
 * are counted from this record for as long as the job holds them, never from the spec, so no later
 * edit can change what a running job holds.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AdmissionRecord {

  /** The BatchNode the job was admitted to. */
  private String node;

  /**
   * The node's mode that applied to the job when it was admitted (ownMode for the node's own work).
   */
  private NodeMode mode;

  /** Who runs the job: Pod (the controller creates its Pod) or Process (the node's agent). */
  private Executor executor;

  /** The requests reserved on the node and counted against the namespace budget. */
  @Size(max = ResourceNames.MAX_PER_MAP)
  private Map<String, Long> requests;

  /** The exclusive lock keys held. */
  @Size(max = BatchJobSpec.MAX_LOCKS)
  private List<String> locks;

  /** The concurrency group whose slot is held. */
  @Size(max = 63)
  private String group;

  public AdmissionRecord() {}

  public AdmissionRecord(
      String node,
      NodeMode mode,
      Executor executor,
      Map<String, Long> requests,
      List<String> locks,
      String group) {
    this.node = node;
    this.mode = mode;
    this.executor = executor;
    this.requests = requests;
    this.locks = locks;
    this.group = group;
  }

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public NodeMode getMode() {
    return mode;
  }

  public void setMode(NodeMode mode) {
    this.mode = mode;
  }

  public Executor getExecutor() {
    return executor;
  }

  public void setExecutor(Executor executor) {
    this.executor = executor;
  }

  public Map<String, Long> getRequests() {
    return requests;
  }

  public void setRequests(Map<String, Long> requests) {
    this.requests = requests;
  }

  public List<String> getLocks() {
    return locks;
  }

  public void setLocks(List<String> locks) {
    this.locks = locks;
  }

  public String getGroup() {
    return group;
  }

  public void setGroup(String group) {
    this.group = group;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AdmissionRecord a
        && Objects.equals(node, a.node)
        && mode == a.mode
        && executor == a.executor
        && Objects.equals(requests, a.requests)
        && Objects.equals(locks, a.locks)
        && Objects.equals(group, a.group);
  }

  @Override
  public int hashCode() {
    return Objects.hash(node, mode, executor, requests, locks, group);
  }
}
