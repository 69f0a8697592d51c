package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.Resources;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.GroupPolicy;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import io.octomy.batch.vocabulary.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A seeded, realistic mix of nodes and jobs. Nodes: 50% Drone, 25% Background, 20% Interactive, 5%
 * Off, a fifth with ownMode Drone, 8 to 64 cores, some GPUs and a site-specific resource. Jobs,
 * over 30 namespaces: 30% Guaranteed, 60% Burstable, 10% BestEffort; mostly small, a few large; 15%
 * take one of 200 locks, 20% are in one of 50 groups (maxRunning 1 to 10), 14% run after an earlier
 * job of their namespace, 10% are a node's own work; budgets on a third of the namespaces.
 */
final class Workload {

  static final String CPU = "octomy.io/cpu-milli";
  static final String MEM = "octomy.io/memory-bytes";
  static final String GPU = "octomy.io/gpu";
  static final String SU2 = "example.com/su2-processes";
  static final int NAMESPACES = 30;
  private static final long GIB = 1L << 30;

  final int nodes;
  final int jobs;
  final Executor executor;
  private final long seed;
  private final Policy policy;

  Workload(int nodes, int jobs, Executor executor, long seed, Duration heartbeatTimeout) {
    this.nodes = nodes;
    this.jobs = jobs;
    this.executor = executor;
    this.seed = seed;
    Map<String, GroupPolicy> groups = new HashMap<>();
    Random r = new Random(seed);
    for (int g = 0; g < 50; g++) {
      groups.put("product-" + g, new GroupPolicy(1 + r.nextInt(10)));
    }
    Map<String, Map<String, Long>> budgets = new HashMap<>();
    for (int ns = 0; ns < NAMESPACES; ns += 3) {
      // Scaled with the cluster so a budget binds without starving the namespace.
      budgets.put(namespace(ns), Map.of(CPU, Math.max(16_000L, nodes * 400L)));
    }
    this.policy =
        new Policy(
            ModeTable.defaults(), PriorityPolicy.defaults(), groups, budgets, heartbeatTimeout);
  }

  Policy policy() {
    return policy;
  }

  /**
   * How the benchmarks and faults run the controller on this workload: its policy, no leader
   * election, the loop's default settings, metrics off.
   */
  BatchController.ControllerOptions controllerOptions() {
    return new BatchController.ControllerOptions(
        policy, false, "default", "127.0.0.1", -1, AdmissionLoop.Settings.defaults());
  }

  static String namespace(int i) {
    return "team-" + String.format("%02d", i);
  }

  static String nodeName(int i) {
    return String.format("node-%04d", i);
  }

  static String jobName(int i) {
    return String.format("job-%05d", i);
  }

  static String namespaceOfJob(int i) {
    return namespace(i % NAMESPACES);
  }

  List<String> namespaces() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < NAMESPACES; i++) {
      out.add(namespace(i));
    }
    return out;
  }

  BatchNode node(int i) {
    Random r = new Random(seed * 31 + i);
    BatchNode n = new BatchNode();
    n.setMetadata(new ObjectMeta());
    n.getMetadata().setName(nodeName(i));
    BatchNodeSpec spec = new BatchNodeSpec();
    int m = r.nextInt(100);
    spec.setMode(
        m < 50
            ? NodeMode.Drone
            : m < 75 ? NodeMode.Background : m < 95 ? NodeMode.Interactive : NodeMode.Off);
    if (r.nextInt(5) == 0) {
      spec.setOwnMode(NodeMode.Drone);
    }
    spec.setExecutor(executor);
    n.setSpec(spec);
    return n;
  }

  /** What the node's agent reports: capacity, a fresh heartbeat, Ready. */
  BatchNodeStatus nodeStatus(int i, Instant heartbeat) {
    Random r = new Random(seed * 31 + i + 7);
    Map<String, Long> cap = new LinkedHashMap<>();
    long cores = new long[] {8, 16, 32, 64}[r.nextInt(4)];
    cap.put(CPU, cores * 1000);
    cap.put(MEM, cores * 4 * GIB);
    cap.put(GPU, r.nextInt(5) == 0 ? 2L : 0L);
    if (r.nextInt(10) < 3) {
      cap.put(SU2, 16L);
    }
    BatchNodeStatus s = new BatchNodeStatus();
    s.setCapacity(cap);
    s.setHeartbeatTime(Times.format(heartbeat));
    s.setConditions(
        Conditions.set(
            null,
            ConditionTypes.READY,
            true,
            "AgentReporting",
            "agent is reporting",
            null,
            heartbeat));
    return s;
  }

  BatchJob job(int i) {
    Random r = new Random(seed * 131 + i);
    BatchJob j = new BatchJob();
    j.setMetadata(new ObjectMeta());
    j.getMetadata().setName(jobName(i));
    j.getMetadata().setNamespace(namespaceOfJob(i));
    BatchJobSpec spec = new BatchJobSpec();
    spec.setType("type-" + r.nextInt(20));
    PodTemplateSpec t = new PodTemplateSpec();
    t.setSpec(
        new PodSpecBuilder()
            .withContainers(
                new ContainerBuilder()
                    .withName("main")
                    .withImage("busybox")
                    .withCommand("sh", "-c", "sleep 1")
                    .build())
            .build());
    spec.setTemplate(t);
    int cls = r.nextInt(10);
    if (cls > 0) { // 10% BestEffort: nothing declared
      long cpu = size(r) * 250;
      long mem = (1 + r.nextInt(16)) * GIB / 2;
      Map<String, Long> req = new LinkedHashMap<>();
      Map<String, Long> lim = new LinkedHashMap<>();
      req.put(CPU, cpu);
      req.put(MEM, mem);
      if (r.nextInt(50) == 0) {
        req.put(GPU, 1L);
      }
      if (r.nextInt(20) == 0) {
        req.put(SU2, 4L);
      }
      if (cls <= 3) { // Guaranteed: limits equal requests
        lim.putAll(req);
      } else { // Burstable: room above the request
        lim.put(CPU, cpu * 2);
        lim.put(MEM, mem * 2);
        req.forEach(lim::putIfAbsent);
      }
      spec.setResources(new Resources(req, lim));
    }
    if (r.nextInt(100) < 15) {
      spec.setLocks(List.of("subject/s-" + r.nextInt(200)));
    }
    if (r.nextInt(100) < 20) {
      spec.setGroup("product-" + r.nextInt(50));
    }
    if (r.nextInt(100) < 14 && i >= NAMESPACES) {
      int back = 1 + r.nextInt(Math.min(50, i / NAMESPACES));
      spec.setAfter(List.of(jobName(i - back * NAMESPACES)));
    }
    if (r.nextInt(10) == 0) {
      spec.setOrigin(nodeName(r.nextInt(nodes)));
    }
    j.setSpec(spec);
    return j;
  }

  /** 1 to 64 quarter-cores, most jobs small. */
  private static long size(Random r) {
    int x = r.nextInt(100);
    return x < 50
        ? 1 + r.nextInt(8)
        : x < 85 ? 8 + r.nextInt(16) : x < 97 ? 24 + r.nextInt(24) : 48 + r.nextInt(16);
  }
}
