package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobSpec;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeSpec;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.Resources;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small fluent builders for the objects the controller tests put into the API server. */
final class ClusterFixtures {

  static final String CPU = "octomy.io/cpu-milli";

  private ClusterFixtures() {}

  static JobBuilder job(String name) {
    return new JobBuilder(name);
  }

  static NodeBuilder node(String name) {
    return new NodeBuilder(name);
  }

  static final class JobBuilder {
    private final BatchJob job = new BatchJob();
    private final Map<String, Long> requests = new LinkedHashMap<>();
    private final Map<String, Long> limits = new LinkedHashMap<>();

    JobBuilder(String name) {
      job.setMetadata(new ObjectMeta());
      job.getMetadata().setName(name);
      job.getMetadata().setNamespace("default");
      BatchJobSpec spec = new BatchJobSpec();
      PodTemplateSpec t = new PodTemplateSpec();
      t.setSpec(
          new PodSpecBuilder()
              .withContainers(
                  new ContainerBuilder()
                      .withName("main")
                      .withImage("busybox")
                      .withCommand("sh", "-c", "echo hi")
                      .build())
              .build());
      spec.setTemplate(t);
      job.setSpec(spec);
    }

    JobBuilder namespace(String ns) {
      job.getMetadata().setNamespace(ns);
      return this;
    }

    JobBuilder request(String name, long qty) {
      requests.put(name, qty);
      return this;
    }

    JobBuilder limit(String name, long qty) {
      limits.put(name, qty);
      return this;
    }

    JobBuilder cpu(long milli) {
      return request(CPU, milli).limit(CPU, milli);
    }

    JobBuilder after(String... names) {
      job.getSpec().setAfter(List.of(names));
      return this;
    }

    JobBuilder locks(String... keys) {
      job.getSpec().setLocks(List.of(keys));
      return this;
    }

    JobBuilder group(String g) {
      job.getSpec().setGroup(g);
      return this;
    }

    JobBuilder type(String t) {
      job.getSpec().setType(t);
      return this;
    }

    BatchJob build() {
      if (!requests.isEmpty() || !limits.isEmpty()) {
        job.getSpec()
            .setResources(
                new Resources(
                    requests.isEmpty() ? null : requests, limits.isEmpty() ? null : limits));
      }
      return job;
    }

    BatchJob create(KubernetesClient c) {
      return c.resources(BatchJob.class)
          .inNamespace(job.getMetadata().getNamespace())
          .resource(build())
          .create();
    }
  }

  static final class NodeBuilder {
    private final BatchNode node = new BatchNode();
    private final Map<String, Long> capacity = new LinkedHashMap<>();
    private Instant heartbeat;

    NodeBuilder(String name) {
      node.setMetadata(new ObjectMeta());
      node.getMetadata().setName(name);
      BatchNodeSpec spec = new BatchNodeSpec();
      spec.setMode(NodeMode.Drone);
      spec.setExecutor(Executor.Pod);
      node.setSpec(spec);
    }

    NodeBuilder mode(NodeMode m) {
      node.getSpec().setMode(m);
      return this;
    }

    NodeBuilder executor(Executor e) {
      node.getSpec().setExecutor(e);
      return this;
    }

    NodeBuilder capacity(String name, long qty) {
      capacity.put(name, qty);
      return this;
    }

    NodeBuilder heartbeat(Instant t) {
      heartbeat = t;
      return this;
    }

    /** The node with the status its agent would report: capacity, heartbeat, Ready. */
    BatchNode build() {
      node.setStatus(reportedStatus());
      return node;
    }

    BatchNode create(KubernetesClient c) {
      BatchNode created = c.resources(BatchNode.class).resource(node).create();
      created.setStatus(reportedStatus());
      return c.resources(BatchNode.class).resource(created).updateStatus();
    }

    private BatchNodeStatus reportedStatus() {
      BatchNodeStatus s = new BatchNodeStatus();
      s.setCapacity(capacity);
      s.setHeartbeatTime(Times.format(heartbeat));
      s.setConditions(
          Conditions.set(
              null, ConditionTypes.READY, true, "AgentReporting", "reporting", null, heartbeat));
      return s;
    }
  }
}
