package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.ServiceClass;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the admission pass needs to know about one BatchJob: its spec and its live status.
 *
 * @param namespace the job's namespace
 * @param name the job's name
 * @param generation {@code metadata.generation}; not used by the pass, carried for the status
 *     writer
 * @param requests resource name to requested quantity (whole numbers); reserved on the node
 * @param limits resource name to limit; only used to derive the service class
 * @param after names of BatchJobs in the same namespace that must succeed first
 * @param locks exclusive lock keys, scoped to the namespace
 * @param group concurrency group, scoped to the namespace; null when none
 * @param origin the BatchNode whose own work this is (offered with that node's ownMode); null when
 *     none
 * @param phase the live {@code status.phase}
 * @param node the node it was admitted to; set for Admitted and Running jobs, otherwise ignored
 * @param queuedAt when it was queued; aging and starvation count from here. Null means "now" (a job
 *     the controller has just seen)
 * @param specProblems validation problems found outside the pass, each a whole sentence; when
 *     non-empty a Queued job is rejected (InvalidSpec) with the sentences joined as its message
 * @param suspend {@code spec.suspend}: a Queued job that is suspended waits, reason Held, and takes
 *     no part in the pass; an Admitted or Running one is not affected
 * @param nodeSelector {@code spec.nodeSelector}: label to value; the job is placed only on a node
 *     whose labels hold every pair. Empty means any node
 * @param notBefore the instant before which a Queued job may not be admitted (a failed run's retry
 *     backing off, reason BackingOff); null when none
 * @param replicas {@code spec.replicas} for a Queued job, or the replicas an Admitted or Running
 *     gang holds: that many copies of the requests, placed whole or not at all; 1 for a single job
 * @param replicaNodes an Admitted or Running gang's node per replica, in replica order ({@code
 *     node} is the first); empty for a single job. A holder's replica without a node here counts on
 *     {@code node}
 */
public record JobView(
    String namespace,
    String name,
    long generation,
    Map<String, Long> requests,
    Map<String, Long> limits,
    List<String> after,
    List<String> locks,
    String group,
    String origin,
    JobPhase phase,
    String node,
    Instant queuedAt,
    List<String> specProblems,
    boolean suspend,
    Map<String, String> nodeSelector,
    Instant notBefore,
    int replicas,
    List<String> replicaNodes) {

  public JobView {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(phase, "phase");
    requests = requests == null ? Map.of() : Map.copyOf(requests);
    limits = limits == null ? Map.of() : Map.copyOf(limits);
    after = after == null ? List.of() : List.copyOf(after);
    locks = locks == null ? List.of() : List.copyOf(locks);
    specProblems = specProblems == null ? List.of() : List.copyOf(specProblems);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    if (replicas < 1) {
      throw new IllegalArgumentException("a job has at least 1 replica, not " + replicas);
    }
    replicaNodes = replicaNodes == null ? List.of() : List.copyOf(replicaNodes);
  }

  /** A job of one replica, retries as given. */
  public JobView(
      String namespace,
      String name,
      long generation,
      Map<String, Long> requests,
      Map<String, Long> limits,
      List<String> after,
      List<String> locks,
      String group,
      String origin,
      JobPhase phase,
      String node,
      Instant queuedAt,
      List<String> specProblems,
      boolean suspend,
      Map<String, String> nodeSelector,
      Instant notBefore) {
    this(
        namespace,
        name,
        generation,
        requests,
        limits,
        after,
        locks,
        group,
        origin,
        phase,
        node,
        queuedAt,
        specProblems,
        suspend,
        nodeSelector,
        notBefore,
        1,
        List.of());
  }

  /** A job that may be admitted at once, as far as retries go. */
  public JobView(
      String namespace,
      String name,
      long generation,
      Map<String, Long> requests,
      Map<String, Long> limits,
      List<String> after,
      List<String> locks,
      String group,
      String origin,
      JobPhase phase,
      String node,
      Instant queuedAt,
      List<String> specProblems,
      boolean suspend,
      Map<String, String> nodeSelector) {
    this(
        namespace,
        name,
        generation,
        requests,
        limits,
        after,
        locks,
        group,
        origin,
        phase,
        node,
        queuedAt,
        specProblems,
        suspend,
        nodeSelector,
        null);
  }

  /** A job that is not suspended and may run on any node. */
  public JobView(
      String namespace,
      String name,
      long generation,
      Map<String, Long> requests,
      Map<String, Long> limits,
      List<String> after,
      List<String> locks,
      String group,
      String origin,
      JobPhase phase,
      String node,
      Instant queuedAt,
      List<String> specProblems) {
    this(
        namespace,
        name,
        generation,
        requests,
        limits,
        after,
        locks,
        group,
        origin,
        phase,
        node,
        queuedAt,
        specProblems,
        false,
        Map.of());
  }

  /** This job's key. */
  public JobKey key() {
    return new JobKey(namespace, name);
  }

  /** The derived service class. */
  public ServiceClass serviceClass() {
    return ServiceClass.of(requests, limits);
  }

  /** A copy with another {@link #notBefore}. */
  public JobView withNotBefore(Instant instant) {
    return Objects.equals(instant, notBefore)
        ? this
        : new JobView(
            namespace,
            name,
            generation,
            requests,
            limits,
            after,
            locks,
            group,
            origin,
            phase,
            node,
            queuedAt,
            specProblems,
            suspend,
            nodeSelector,
            instant,
            replicas,
            replicaNodes);
  }

  /** A copy with another replica count (a gang of {@code count} copies of the requests). */
  public JobView withReplicas(int count) {
    return new JobView(
        namespace,
        name,
        generation,
        requests,
        limits,
        after,
        locks,
        group,
        origin,
        phase,
        node,
        queuedAt,
        specProblems,
        suspend,
        nodeSelector,
        notBefore,
        count,
        replicaNodes);
  }

  /**
   * A copy with another phase and the nodes of its replicas in replica order (the first is {@link
   * #node}; a single job's list has one node or none), e.g. to apply an admission.
   */
  public JobView withNodes(JobPhase newPhase, List<String> nodes) {
    return new JobView(
        namespace,
        name,
        generation,
        requests,
        limits,
        after,
        locks,
        group,
        origin,
        newPhase,
        nodes.isEmpty() ? null : nodes.get(0),
        queuedAt,
        specProblems,
        suspend,
        nodeSelector,
        notBefore,
        replicas,
        nodes.size() > 1 ? nodes : List.of());
  }

  /** The node of each replica in replica order: {@link #replicaNodes}, or {@link #node} alone. */
  public List<String> nodes() {
    if (!replicaNodes.isEmpty()) {
      return replicaNodes;
    }
    return node == null ? List.of() : List.of(node);
  }

  /**
   * A copy with another phase and node, e.g. to apply a single job's admission; a gang's replica
   * nodes are kept.
   */
  public JobView withPhase(JobPhase newPhase, String newNode) {
    return new JobView(
        namespace,
        name,
        generation,
        requests,
        limits,
        after,
        locks,
        group,
        origin,
        newPhase,
        newNode,
        queuedAt,
        specProblems,
        suspend,
        nodeSelector,
        notBefore,
        replicas,
        replicaNodes);
  }
}
