package io.octomy.batch.visibility;

import io.octomy.batch.admission.ArrayShape;
import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.QueueView;
import io.octomy.batch.admission.Snapshot;
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
 * A fluent world for visibility tests: jobs with types and start times, nodes, policy tweaks and
 * recorded run times. Defaults: namespace {@code studio}, queued now, nodes ready in mode Drone.
 */
final class VisibilityWorld {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final String CPU = "octomy.io/cpu-milli";
  static final String GPU = "octomy.io/gpu";
  static final String NS = "studio";

  private final List<Job> jobs = new ArrayList<>();
  private final List<NodeView> nodes = new ArrayList<>();
  private final Map<String, GroupPolicy> groups = new HashMap<>();
  private final Map<String, Map<String, Long>> budgets = new HashMap<>();
  private final Map<LearntRunTimes.JobType, List<Long>> runs = new HashMap<>();
  private final List<ArrayShape> arrays = new ArrayList<>();
  private final Map<String, String> arrayTypes = new HashMap<>();
  private final List<QueueView> queues = new ArrayList<>();

  static VisibilityWorld world() {
    return new VisibilityWorld();
  }

  static Job job(String name) {
    return new Job(name);
  }

  /** One job. */
  static final class Job {
    private final String name;
    private final Map<String, Long> requests = new LinkedHashMap<>();
    private final Map<String, Long> limits = new LinkedHashMap<>();
    private final List<String> after = new ArrayList<>();
    private final List<String> locks = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private String group;
    private String origin;
    private String type;
    private JobPhase phase = JobPhase.Queued;
    private String node;
    private Instant queuedAt = NOW;
    private Instant startedAt;

    private boolean suspend;
    private Instant notBefore;
    private final Map<String, String> nodeSelector = new LinkedHashMap<>();

    private String namespace = NS;
    private int replicas = 1;
    private Duration deadline;

    private Job(String name) {
      this.name = name;
    }

    Job namespace(String value) {
      namespace = value;
      return this;
    }

    Job requests(String resource, long quantity) {
      requests.put(resource, quantity);
      return this;
    }

    Job guaranteed(String resource, long quantity) {
      requests.put(resource, quantity);
      limits.put(resource, quantity);
      return this;
    }

    Job type(String value) {
      type = value;
      return this;
    }

    Job after(String... names) {
      after.addAll(List.of(names));
      return this;
    }

    Job locks(String... keys) {
      locks.addAll(List.of(keys));
      return this;
    }

    Job group(String value) {
      group = value;
      return this;
    }

    Job origin(String value) {
      origin = value;
      return this;
    }

    Job problem(String sentence) {
      problems.add(sentence);
      return this;
    }

    Job phase(JobPhase value) {
      phase = value;
      return this;
    }

    /** Running on a node since some minutes. */
    Job running(String onNode, long minutesAgo) {
      phase = JobPhase.Running;
      node = onNode;
      startedAt = NOW.minus(Duration.ofMinutes(minutesAgo));
      return this;
    }

    /** A retry backing off until {@code seconds} from now. */
    Job backingOffSeconds(long seconds) {
      notBefore = NOW.plusSeconds(seconds);
      return this;
    }

    /** spec.suspend: true. */
    Job suspended() {
      suspend = true;
      return this;
    }

    /** spec.activeDeadlineSeconds, in minutes. */
    Job deadlineMinutes(long minutes) {
      deadline = Duration.ofMinutes(minutes);
      return this;
    }

    /** spec.replicas: a gang. */
    Job replicas(int count) {
      replicas = count;
      return this;
    }

    Job nodeSelector(String label, String value) {
      nodeSelector.put(label, value);
      return this;
    }

    Job queuedMinutesAgo(long minutes) {
      queuedAt = NOW.minus(Duration.ofMinutes(minutes));
      return this;
    }

    JobView view() {
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
          List.of());
    }
  }

  /**
   * An array job of {@code count} items like {@code template}, at most {@code maxRunning}
   * unfinished at once; its existing items are added with {@link #with}, named {@code NAME-I}.
   */
  VisibilityWorld array(Job template, int count, int maxRunning, boolean held) {
    arrays.add(
        new ArrayShape(
            template.namespace,
            template.name,
            count,
            maxRunning,
            !held,
            template.view(),
            NOW.plusNanos(1)));
    arrayTypes.put(template.name, template.type);
    return this;
  }

  VisibilityWorld with(Job... more) {
    jobs.addAll(List.of(more));
    return this;
  }

  VisibilityWorld node(String name, NodeMode mode, String resource, long capacity) {
    nodes.add(
        new NodeView(name, mode, null, Map.of(resource, capacity), NOW.minusSeconds(5), true));
    return this;
  }

  VisibilityWorld node(NodeView view) {
    nodes.add(view);
    return this;
  }

  VisibilityWorld group(String name, int maxRunning) {
    groups.put(name, new GroupPolicy(maxRunning));
    return this;
  }

  VisibilityWorld queue(QueueView queue) {
    queues.add(queue);
    return this;
  }

  VisibilityWorld budget(String resource, long limit) {
    budgets.computeIfAbsent(NS, k -> new HashMap<>()).put(resource, limit);
    return this;
  }

  /** Recorded run times of a type, in minutes. */
  VisibilityWorld runs(String type, long... minutes) {
    List<Long> seconds = new ArrayList<>();
    for (long m : minutes) {
      seconds.add(m * 60);
    }
    runs.put(new LearntRunTimes.JobType(NS, type), seconds);
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
    List<JobView> views = new ArrayList<>(jobs.stream().map(Job::view).toList());
    for (ArrayShape a : arrays) {
      views.add(ArrayShape.parentView(a.namespace(), a.name(), 1, JobPhase.Running, NOW, null));
    }
    return new Snapshot(views, nodes, policy, NOW, queues, arrays);
  }

  LearntRunTimes runTimes() {
    Map<JobKey, LearntRunTimes.JobFacts> facts = new HashMap<>();
    for (Job j : jobs) {
      facts.put(
          new JobKey(j.namespace, j.name),
          new LearntRunTimes.JobFacts(j.type, j.startedAt, j.deadline));
    }
    arrayTypes.forEach(
        (name, type) -> facts.put(new JobKey(NS, name), new LearntRunTimes.JobFacts(type, null)));
    return new LearntRunTimes(runs, facts, NOW);
  }

  Visibility visibility() {
    return new Visibility(snapshot(), runTimes());
  }
}
