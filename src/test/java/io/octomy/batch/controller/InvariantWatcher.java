package io.octomy.batch.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.fixtures.ApiFixtures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches every BatchJob change and checks, after each one, that no node is over its capacity, no
 * lock has two holders, no group is over its cap, and no job was admitted twice.
 */
final class InvariantWatcher implements AutoCloseable {

  private final SharedIndexInformer<BatchJob> informer;
  private final Map<String, Long> capacity;
  private final Map<String, Integer> groupCaps;
  private final Map<String, Set<String>> admissionsPerJob = new ConcurrentHashMap<>();
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());

  InvariantWatcher(
      KubernetesClient client,
      Map<String, Long> cpuCapacityPerNode,
      Map<String, Integer> groupCaps) {
    this.capacity = cpuCapacityPerNode;
    this.groupCaps = groupCaps;
    this.informer =
        client
            .resources(BatchJob.class)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(BatchJob obj) {
                    check(obj);
                  }

                  @Override
                  public void onUpdate(BatchJob oldObj, BatchJob newObj) {
                    check(newObj);
                  }

                  @Override
                  public void onDelete(BatchJob obj, boolean deletedFinalStateUnknown) {}
                });
  }

  private synchronized void check(BatchJob changed) {
    BatchJobStatus cs = changed.getStatus();
    if (cs != null && cs.getAdmittedAt() != null) {
      Set<String> seen =
          admissionsPerJob.computeIfAbsent(
              changed.getMetadata().getUid(), k -> ConcurrentHashMap.newKeySet());
      seen.add(cs.getNode() + "@" + cs.getAdmittedAt());
      if (seen.size() > 1) {
        violations.add(changed.getMetadata().getName() + " admitted twice: " + seen);
      }
    }
    Map<String, Long> allocated = new HashMap<>();
    Map<String, String> lockHolder = new HashMap<>();
    Map<String, Integer> groupCount = new HashMap<>();
    for (BatchJob j : informer.getStore().list()) {
      BatchJobStatus s = j.getStatus();
      if (s == null || s.getPhase() == null || !s.getPhase().holdsReservation()) {
        continue;
      }
      long cpu =
          j.getSpec().getResources() == null || j.getSpec().getResources().getRequests() == null
              ? 0
              : j.getSpec().getResources().getRequests().getOrDefault(ApiFixtures.CPU, 0L);
      long total = allocated.merge(s.getNode(), cpu, Long::sum);
      if (total > capacity.getOrDefault(s.getNode(), 0L)) {
        violations.add(
            "node " + s.getNode() + " allocated " + total + " > " + capacity.get(s.getNode()));
      }
      if (j.getSpec().getLocks() != null) {
        for (String l : j.getSpec().getLocks()) {
          String prev = lockHolder.put(l, j.getMetadata().getName());
          if (prev != null) {
            violations.add("lock " + l + " held by " + prev + " and " + j.getMetadata().getName());
          }
        }
      }
      if (j.getSpec().getGroup() != null) {
        int n = groupCount.merge(j.getSpec().getGroup(), 1, Integer::sum);
        if (n > groupCaps.getOrDefault(j.getSpec().getGroup(), 1)) {
          violations.add("group " + j.getSpec().getGroup() + " has " + n + " running");
        }
      }
    }
  }

  List<String> violations() {
    return List.copyOf(new HashSet<>(violations));
  }

  @Override
  public void close() {
    informer.close();
  }
}
