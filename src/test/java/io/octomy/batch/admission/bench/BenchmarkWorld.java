package io.octomy.batch.admission.bench;

import io.octomy.batch.admission.AdmissionPass;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.admission.NodeView;
import io.octomy.batch.admission.Snapshot;
import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A seeded, realistic world for the benchmark: {@code queued} Queued jobs (plus 10% more already
 * running and some finished ones), {@code nodeCount} nodes with 8 resource names between them,
 * locks, groups, dependencies, budgets, origins, mixed modes, a few stale nodes, and queue ages up
 * to three hours so aging and starvation are in play. About half of the work fits the cluster;
 * every reason the pass can give shows up (the benchmark prints the counts).
 */
public final class BenchmarkWorld {

  static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
  static final String CPU = "octomy.io/cpu-milli";
  static final String MEM = "octomy.io/memory-bytes";
  static final String GPU = "octomy.io/gpu";
  static final List<String> EXTRA =
      List.of(
          "example.com/su2-processes",
          "example.com/cfd-licences",
          "banter.io/hashes-per-second",
          "example.com/camera-streams",
          "example.com/scratch-bytes");
  static final long GB = 1_000_000_000L;

  private BenchmarkWorld() {}

  public static Snapshot build(int queued, int nodeCount, long seed) {
    Random random = new Random(seed);
    List<NodeView> nodes = new ArrayList<>();
    for (int i = 0; i < nodeCount; i++) {
      nodes.add(node(random, i));
    }
    int namespaces = 30;
    int lockPool = Math.max(20, queued / 50);
    int groups = 50;
    List<JobView> jobs = new ArrayList<>();
    // Finished jobs that queued ones depend on.
    for (int i = 0; i < queued / 20; i++) {
      jobs.add(
          job(
              random,
              "done-" + i,
              "ns-" + (i % namespaces),
              JobPhase.Succeeded,
              null,
              List.of(),
              lockPool,
              groups,
              nodeCount));
    }
    for (int i = 0; i < queued / 100; i++) {
      jobs.add(
          job(
              random,
              "failed-" + i,
              "ns-" + (i % namespaces),
              JobPhase.Failed,
              null,
              List.of(),
              lockPool,
              groups,
              nodeCount));
    }
    // Admitted and running jobs on random nodes, holding capacity, locks, groups and budget.
    for (int i = 0; i < queued / 10; i++) {
      String node = "node-" + String.format("%05d", random.nextInt(nodeCount));
      jobs.add(
          job(
              random,
              "run-" + i,
              "ns-" + (i % namespaces),
              random.nextBoolean() ? JobPhase.Running : JobPhase.Admitted,
              node,
              List.of(),
              lockPool,
              groups,
              nodeCount));
    }
    for (int i = 0; i < queued; i++) {
      String namespace = "ns-" + (i % namespaces);
      List<String> after = new ArrayList<>();
      int roll = random.nextInt(100);
      if (roll < 8 && i >= namespaces) {
        after.add("job-" + (i - namespaces * (1 + random.nextInt(Math.min(10, i / namespaces)))));
      } else if (roll < 12) {
        after.add(
            "done-"
                + (random.nextInt(Math.max(1, queued / 20 / namespaces)) * namespaces
                    + i % namespaces));
      } else if (roll < 13) {
        after.add(
            "failed-"
                + (random.nextInt(Math.max(1, queued / 100 / namespaces + 1)) * namespaces
                    + i % namespaces));
      } else if (roll < 14) {
        after.add("not-applied-yet-" + i);
      }
      // A few two-job cycles (job-i and job-(i+30) wait for each other) and invalid specs.
      if (i % 997 == 0 && i + namespaces < queued) {
        after.add("job-" + (i + namespaces));
      } else if (i >= namespaces && (i - namespaces) % 997 == 0) {
        after.add("job-" + (i - namespaces));
      }
      JobView job =
          job(
              random,
              "job-" + i,
              namespace,
              JobPhase.Queued,
              null,
              after,
              lockPool,
              groups,
              nodeCount);
      if (i % 331 == 5) {
        job =
            new JobView(
                job.namespace(),
                job.name(),
                1,
                job.requests(),
                job.limits(),
                job.after(),
                job.locks(),
                job.group(),
                job.origin(),
                job.phase(),
                null,
                job.queuedAt(),
                List.of(
                    "Resource name cfd-cores has no domain; write" + " example.com/cfd-cores."));
      }
      jobs.add(job);
    }
    Map<String, GroupPolicy> groupPolicies = new HashMap<>();
    for (int g = 0; g < groups; g++) {
      groupPolicies.put("group-" + g, new GroupPolicy(1 + random.nextInt(10)));
    }
    Map<String, Map<String, Long>> budgets = new HashMap<>();
    for (int n = 0; n < namespaces; n += 3) {
      budgets.put("ns-" + n, Map.of(CPU, 8_000L * nodeCount / 10, MEM, 16 * GB * nodeCount / 10));
    }
    Policy defaults = Policy.defaults();
    Policy policy =
        new Policy(
            defaults.modes(),
            PriorityPolicy.defaults(),
            groupPolicies,
            budgets,
            defaults.nodeHeartbeatTimeout());
    return new Snapshot(jobs, nodes, policy, NOW);
  }

  /**
   * The same world one busy loop turn later: the first {@code changes} admissions of a pass over it
   * written back, as many running jobs finished and queued jobs created, a fifth as many queued
   * jobs edited (new requests) and deleted, five nodes reporting a new heartbeat, and the clock 30
   * s on. Every job and node that did not change is the same object as in {@code world}.
   */
  public static Snapshot changed(Snapshot world, int changes, long seed) {
    Random random = new Random(seed);
    Map<String, String> admittedTo = new HashMap<>();
    AdmissionPass.decide(world).admissions().stream()
        .limit(changes)
        .forEach(a -> admittedTo.put(a.job().namespace() + "/" + a.job().name(), a.node()));
    List<JobView> jobs = new ArrayList<>();
    int finished = 0;
    int edited = 0;
    int deleted = 0;
    int start = random.nextInt(world.jobs().size());
    for (int k = 0; k < world.jobs().size(); k++) {
      JobView job = world.jobs().get((start + k) % world.jobs().size());
      String node = admittedTo.get(job.namespace() + "/" + job.name());
      if (node != null) {
        jobs.add(job.withPhase(JobPhase.Admitted, node));
      } else if (job.phase().holdsReservation() && finished < changes) {
        finished++;
        jobs.add(job.withPhase(JobPhase.Succeeded, job.node()));
      } else if (job.phase() == JobPhase.Queued && edited < changes / 5) {
        edited++;
        Map<String, Long> requests = new LinkedHashMap<>(job.requests());
        requests.put(CPU, 500L * (1 + random.nextInt(16)));
        jobs.add(
            new JobView(
                job.namespace(),
                job.name(),
                job.generation() + 1,
                requests,
                job.limits(),
                job.after(),
                job.locks(),
                job.group(),
                job.origin(),
                job.phase(),
                null,
                job.queuedAt(),
                job.specProblems()));
      } else if (job.phase() == JobPhase.Queued && deleted < changes / 5) {
        deleted++;
      } else {
        jobs.add(job);
      }
    }
    int nodeCount = world.nodes().size();
    for (int i = 0; i < changes; i++) {
      jobs.add(
          job(
              random,
              "new-" + seed + "-" + i,
              "ns-" + (i % 30),
              JobPhase.Queued,
              null,
              List.of(),
              Math.max(20, jobs.size() / 60),
              50,
              nodeCount));
    }
    Instant now = world.now().plusSeconds(30);
    List<NodeView> nodes = new ArrayList<>(world.nodes());
    for (int i = 0; i < 5; i++) {
      int n = random.nextInt(nodes.size());
      NodeView node = nodes.get(n);
      nodes.set(
          n,
          new NodeView(
              node.name(),
              node.mode(),
              node.ownMode(),
              node.capacity(),
              now,
              node.ready(),
              node.usage()));
    }
    return new Snapshot(jobs, nodes, world.policy(), now);
  }

  private static NodeView node(Random random, int i) {
    int roll = random.nextInt(100);
    NodeMode mode =
        roll < 50
            ? NodeMode.Drone
            : roll < 75 ? NodeMode.Background : roll < 95 ? NodeMode.Interactive : NodeMode.Off;
    NodeMode ownMode = random.nextInt(5) == 0 ? NodeMode.Drone : null;
    Map<String, Long> capacity = new LinkedHashMap<>();
    capacity.put(CPU, 8_000L * (1 + random.nextInt(8)));
    capacity.put(MEM, 16 * GB * (1 + random.nextInt(16)));
    capacity.put(GPU, random.nextInt(3) == 0 ? (long) (1 + random.nextInt(4)) : 0L);
    for (String extra : EXTRA) {
      if (random.nextBoolean()) {
        capacity.put(extra, 4L + random.nextInt(60));
      }
    }
    Instant heartbeat = random.nextInt(100) < 3 ? NOW.minusSeconds(600) : NOW.minusSeconds(5);
    return new NodeView(
        "node-" + String.format("%05d", i),
        mode,
        ownMode,
        capacity,
        heartbeat,
        random.nextInt(100) < 98);
  }

  private static JobView job(
      Random random,
      String name,
      String namespace,
      JobPhase phase,
      String node,
      List<String> after,
      int lockPool,
      int groups,
      int nodeCount) {
    Map<String, Long> requests = new LinkedHashMap<>();
    Map<String, Long> limits = new LinkedHashMap<>();
    int shape = random.nextInt(10);
    if (shape > 0) { // one in ten declares nothing (BestEffort)
      requests.put(CPU, 500L * (1 + random.nextInt(16)));
      if (random.nextInt(10) < 8) {
        requests.put(MEM, GB * (1 + random.nextInt(32)));
      }
      if (random.nextInt(20) == 0) {
        requests.put(GPU, 1L);
      }
      if (random.nextInt(5) == 0) {
        requests.put(EXTRA.get(random.nextInt(EXTRA.size())), 1L + random.nextInt(8));
      }
      if (random.nextInt(100) == 0) { // a resource no node has: NoNodeFits
        requests.put("example.com/fpga", 1L);
      }
      if (shape <= 3) { // Guaranteed
        limits.putAll(requests);
      } else {
        requests.forEach((k, v) -> limits.put(k, v * 2));
      }
    }
    List<String> locks =
        random.nextInt(100) < 15 ? List.of("subject/s-" + random.nextInt(lockPool)) : List.of();
    String group = random.nextInt(100) < 20 ? "group-" + random.nextInt(groups) : null;
    String origin =
        random.nextInt(10) == 0 ? "node-" + String.format("%05d", random.nextInt(nodeCount)) : null;
    Instant queuedAt = NOW.minusSeconds(random.nextInt(3 * 3600));
    return new JobView(
        namespace, name, 1, requests, limits, after, locks, group, origin, phase, node, queuedAt,
        List.of());
  }
}
