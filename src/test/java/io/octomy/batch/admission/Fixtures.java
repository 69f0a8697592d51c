package io.octomy.batch.admission;

import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One small fluent builder for admission test snapshots: jobs, nodes and policy tweaks. Defaults:
 * namespace {@code studio}, a job queued right now, a ready node in mode Drone with a heartbeat ten
 * seconds old.
 */
final class Fixtures {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final String CPU = "octomy.io/cpu-milli";
  static final String MEM = "octomy.io/memory-bytes";
  static final String GPU = "octomy.io/gpu";
  static final String SU2 = "example.com/su2-processes";
  static final String NS = "studio";

  private Fixtures() {}

  static JobBuilder job(String name) {
    return new JobBuilder(name);
  }

  static NodeBuilder node(String name) {
    return new NodeBuilder(name);
  }

  static World world() {
    return new World();
  }

  static QueueBuilder queue(String name) {
    return new QueueBuilder(name);
  }

  /** Builds one {@link QueueView}: weight 1, no parent, no caps, no namespaces. */
  static final class QueueBuilder {
    private final Map<String, String> nodeSelector = new LinkedHashMap<>();
    private final String name;
    private String parent;
    private long weight = 1;
    private final Map<String, Long> min = new LinkedHashMap<>();
    private final Map<String, Long> max = new LinkedHashMap<>();
    private final List<String> namespaces = new ArrayList<>();
    private final Map<String, Long> pastUsage = new LinkedHashMap<>();

    private QueueBuilder(String name) {
      this.name = name;
    }

    QueueBuilder namespaces(String... names) {
      namespaces.addAll(List.of(names));
      return this;
    }

    QueueBuilder parent(String value) {
      parent = value;
      return this;
    }

    QueueBuilder weight(long value) {
      weight = value;
      return this;
    }

    QueueBuilder min(String resource, long quantity) {
      min.put(resource, quantity);
      return this;
    }

    QueueBuilder max(String resource, long quantity) {
      max.put(resource, quantity);
      return this;
    }

    /** What the queue ran: request x seconds, decayed to now. */
    QueueBuilder pastUsage(String resource, long requestSeconds) {
      pastUsage.put(resource, requestSeconds);
      return this;
    }

    /** A label its jobs' nodes must carry. */
    QueueBuilder nodeSelector(String label, String value) {
      nodeSelector.put(label, value);
      return this;
    }

    QueueView build() {
      return new QueueView(name, parent, weight, min, max, namespaces, pastUsage, nodeSelector);
    }
  }

  /** Builds one {@link JobView}. */
  static final class JobBuilder {
    private String namespace = NS;
    private final String name;
    private final Map<String, Long> requests = new LinkedHashMap<>();
    private final Map<String, Long> limits = new LinkedHashMap<>();
    private final List<String> after = new ArrayList<>();
    private final List<String> locks = new ArrayList<>();
    private String group;
    private String origin;
    private JobPhase phase = JobPhase.Queued;
    private String node;
    private Instant queuedAt = NOW;
    private Instant notBefore;
    private final List<String> problems = new ArrayList<>();
    private boolean suspend;
    private final Map<String, String> nodeSelector = new LinkedHashMap<>();
    private int replicas = 1;
    private List<String> replicaNodes = List.of();

    private JobBuilder(String name) {
      this.name = name;
    }

    JobBuilder namespace(String value) {
      namespace = value;
      return this;
    }

    JobBuilder requests(String resource, long quantity) {
      requests.put(resource, quantity);
      return this;
    }

    /** Request and limit equal: with only such resources the job is Guaranteed. */
    JobBuilder guaranteed(String resource, long quantity) {
      requests.put(resource, quantity);
      limits.put(resource, quantity);
      return this;
    }

    JobBuilder limits(String resource, long quantity) {
      limits.put(resource, quantity);
      return this;
    }

    JobBuilder after(String... names) {
      after.addAll(List.of(names));
      return this;
    }

    JobBuilder locks(String... keys) {
      locks.addAll(List.of(keys));
      return this;
    }

    JobBuilder group(String value) {
      group = value;
      return this;
    }

    JobBuilder origin(String value) {
      origin = value;
      return this;
    }

    /** Admitted/Running jobs hold their node; finished ones just have the phase. */
    JobBuilder phase(JobPhase value) {
      phase = value;
      return this;
    }

    JobBuilder running(String onNode) {
      phase = JobPhase.Running;
      node = onNode;
      return this;
    }

    JobBuilder admitted(String onNode) {
      phase = JobPhase.Admitted;
      node = onNode;
      return this;
    }

    JobBuilder queuedMinutesAgo(long minutes) {
      queuedAt = NOW.minus(Duration.ofMinutes(minutes));
      return this;
    }

    JobBuilder queuedSecondsAgo(long seconds) {
      queuedAt = NOW.minusSeconds(seconds);
      return this;
    }

    /** A retry backing off: not admitted before {@code seconds} from now. */
    JobBuilder backingOffSeconds(long seconds) {
      notBefore = NOW.plusSeconds(seconds);
      return this;
    }

    /** spec.suspend: true. */
    JobBuilder suspended() {
      suspend = true;
      return this;
    }

    JobBuilder nodeSelector(String label, String value) {
      nodeSelector.put(label, value);
      return this;
    }

    /** spec.replicas: a gang of {@code count} copies of the requests. */
    JobBuilder replicas(int count) {
      replicas = count;
      return this;
    }

    /** An Admitted gang holding one replica on each node named, in replica order. */
    JobBuilder admittedGang(String... nodes) {
      phase = JobPhase.Admitted;
      node = nodes[0];
      replicas = nodes.length;
      replicaNodes = List.of(nodes);
      return this;
    }

    JobBuilder problem(String sentence) {
      problems.add(sentence);
      return this;
    }

    JobView build() {
      return new JobView(
          namespace,
          name,
          1,
          requests,
          limits,
          after,
          locks,
          group,
          origin,
          phase,
          node,
          queuedAt,
          problems,
          suspend,
          nodeSelector,
          notBefore,
          replicas,
          replicaNodes);
    }
  }

  /** Builds one {@link NodeView}. */
  static final class NodeBuilder {
    private final String name;
    private NodeMode mode = NodeMode.Drone;
    private NodeMode ownMode;
    private final Map<String, Long> capacity = new LinkedHashMap<>();
    private final Map<String, Long> usage = new LinkedHashMap<>();
    private Instant heartbeat = NOW.minusSeconds(10);
    private boolean ready = true;
    private final List<String> strayRuns = new ArrayList<>();
    private final Map<String, String> labels = new LinkedHashMap<>();

    private NodeBuilder(String name) {
      this.name = name;
    }

    NodeBuilder mode(NodeMode value) {
      mode = value;
      return this;
    }

    NodeBuilder ownMode(NodeMode value) {
      ownMode = value;
      return this;
    }

    NodeBuilder capacity(String resource, long quantity) {
      capacity.put(resource, quantity);
      return this;
    }

    /** What the agent measures in use on the whole machine. */
    NodeBuilder usage(String resource, long quantity) {
      usage.put(resource, quantity);
      return this;
    }

    NodeBuilder heartbeatSecondsAgo(long seconds) {
      heartbeat = NOW.minusSeconds(seconds);
      return this;
    }

    /** A metadata.labels pair. */
    NodeBuilder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    NodeBuilder notReady() {
      ready = false;
      return this;
    }

    /** A run the agent reports still going whose job is gone, as "namespace/name". */
    NodeBuilder strayRun(String run) {
      strayRuns.add(run);
      return this;
    }

    NodeView build() {
      return new NodeView(
          name, mode, ownMode, capacity, heartbeat, ready, usage, strayRuns, labels);
    }
  }

  /** Jobs, nodes and policy tweaks, turned into a {@link Snapshot}. */
  static final class World {
    private final List<JobView> jobs = new ArrayList<>();
    private final List<NodeView> nodes = new ArrayList<>();
    private final Map<String, GroupPolicy> groups = new HashMap<>();
    private final Map<String, Map<String, Long>> budgets = new HashMap<>();
    private final List<QueueView> queues = new ArrayList<>();

    World with(QueueBuilder... builders) {
      for (QueueBuilder b : builders) {
        queues.add(b.build());
      }
      return this;
    }

    World with(JobBuilder... builders) {
      for (JobBuilder b : builders) {
        jobs.add(b.build());
      }
      return this;
    }

    World with(NodeBuilder... builders) {
      for (NodeBuilder b : builders) {
        nodes.add(b.build());
      }
      return this;
    }

    World group(String name, int maxRunning) {
      groups.put(name, new GroupPolicy(maxRunning));
      return this;
    }

    World budget(String namespace, String resource, long limit) {
      budgets.computeIfAbsent(namespace, k -> new HashMap<>()).put(resource, limit);
      return this;
    }

    Snapshot snapshot() {
      Policy defaults = Policy.defaults();
      Policy policy =
          new Policy(
              defaults.modes(),
              PriorityPolicy.defaults(),
              groups,
              budgets,
              defaults.nodeHeartbeatTimeout());
      return new Snapshot(jobs, nodes, policy, NOW, queues);
    }
  }
}
