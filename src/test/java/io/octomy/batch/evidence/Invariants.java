package io.octomy.batch.evidence;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.vocabulary.Labels;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Checks the promises of admission after every change the API server reports, over everything it
 * holds: no node allocated beyond what it offers (any resource), no lock with two holders, no group
 * over its cap, no namespace over its budget, no job admitted twice (a second node or admittedAt
 * for the same uid), no job with two Pods.
 */
final class Invariants implements AutoCloseable {

  private final Policy policy;
  private final SharedIndexInformer<BatchJob> jobs;
  private final SharedIndexInformer<BatchNode> nodes;
  private final SharedIndexInformer<Pod> pods;
  private final Map<String, Set<String>> admissions = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> podsPerJob = new ConcurrentHashMap<>();
  private final Set<String> violations = Collections.synchronizedSet(new LinkedHashSet<>());
  private final AtomicLong checks = new AtomicLong();

  Invariants(KubernetesClient client, Policy policy) {
    this.policy = policy;
    this.nodes = client.resources(BatchNode.class).inform();
    this.pods =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                handler(
                    p -> {
                      String uid =
                          p.getMetadata().getLabels() == null
                              ? null
                              : p.getMetadata().getLabels().get(Labels.JOB_UID);
                      if (uid != null) {
                        Set<String> s =
                            podsPerJob.computeIfAbsent(uid, k -> ConcurrentHashMap.newKeySet());
                        s.add(p.getMetadata().getName());
                        if (s.size() > 1) {
                          violations.add("job uid " + uid + " started twice: pods " + s);
                        }
                      }
                    }));
    this.jobs = client.resources(BatchJob.class).inAnyNamespace().inform(handler(this::check));
  }

  private static <T> ResourceEventHandler<T> handler(Consumer<T> f) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        f.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        f.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean unknown) {}
    };
  }

  private synchronized void check(BatchJob changed) {
    checks.incrementAndGet();
    BatchJobStatus cs = changed.getStatus();
    if (cs != null && cs.getAdmittedAt() != null) {
      Set<String> seen =
          admissions.computeIfAbsent(
              changed.getMetadata().getUid(), k -> ConcurrentHashMap.newKeySet());
      seen.add(cs.getNode() + "@" + cs.getAdmittedAt());
      if (seen.size() > 1) {
        violations.add(DecisionWatch.key(changed) + " admitted twice: " + seen);
      }
    }
    Map<String, Map<String, Long>> allocated = new HashMap<>();
    Map<String, String> lockHolder = new HashMap<>();
    Map<String, Integer> groupCount = new HashMap<>();
    Map<String, Map<String, Long>> budgetUse = new HashMap<>();
    for (BatchJob j : jobs.getStore().list()) {
      BatchJobStatus s = j.getStatus();
      if (s == null || s.getPhase() == null || !s.getPhase().holdsReservation()) {
        continue;
      }
      String ns = j.getMetadata().getNamespace();
      Map<String, Long> req =
          j.getSpec().getResources() == null || j.getSpec().getResources().getRequests() == null
              ? Map.of()
              : j.getSpec().getResources().getRequests();
      Map<String, Long> onNode = allocated.computeIfAbsent(s.getNode(), k -> new HashMap<>());
      req.forEach((r, q) -> onNode.merge(r, q, Long::sum));
      if (policy.budgets().containsKey(ns)) {
        Map<String, Long> used = budgetUse.computeIfAbsent(ns, k -> new HashMap<>());
        req.forEach((r, q) -> used.merge(r, q, Long::sum));
      }
      if (j.getSpec().getLocks() != null) {
        for (String l : j.getSpec().getLocks()) {
          String prev = lockHolder.put(ns + "/" + l, j.getMetadata().getName());
          if (prev != null) {
            violations.add(
                "lock " + ns + "/" + l + " held by " + prev + " and " + j.getMetadata().getName());
          }
        }
      }
      if (j.getSpec().getGroup() != null) {
        int n = groupCount.merge(ns + "/" + j.getSpec().getGroup(), 1, Integer::sum);
        if (n > policy.maxRunning(j.getSpec().getGroup())) {
          violations.add(
              "group "
                  + ns
                  + "/"
                  + j.getSpec().getGroup()
                  + " has "
                  + n
                  + " running, cap "
                  + policy.maxRunning(j.getSpec().getGroup()));
        }
      }
    }
    allocated.forEach(
        (node, use) -> {
          BatchNode n = nodes.getStore().getByKey(node);
          if (n == null || n.getStatus() == null || n.getStatus().getCapacity() == null) {
            return; // a node deleted under its jobs holds nothing to check against
          }
          use.forEach(
              (r, q) -> {
                long cap = n.getStatus().getCapacity().getOrDefault(r, 0L);
                NodeMode own =
                    n.getSpec().getOwnMode() == null
                        ? n.getSpec().getMode()
                        : n.getSpec().getOwnMode();
                long offer =
                    Math.max(
                        policy.modes().offer(n.getSpec().getMode(), r, cap),
                        policy.modes().offer(own, r, cap));
                if (q > offer) {
                  violations.add(
                      "node " + node + " allocated " + q + " " + r + " > offer " + offer);
                }
              });
        });
    budgetUse.forEach(
        (ns, used) ->
            used.forEach(
                (r, q) -> {
                  Long budget = policy.budgets().get(ns).get(r);
                  if (budget != null && q > budget) {
                    violations.add(
                        "namespace " + ns + " uses " + q + " " + r + " > budget " + budget);
                  }
                }));
  }

  List<String> violations() {
    synchronized (violations) {
      return new ArrayList<>(violations);
    }
  }

  /** Jobs whose status ever showed two different admissions. */
  long admittedTwice() {
    return admissions.values().stream().filter(s -> s.size() > 1).count();
  }

  long startedTwice() {
    return podsPerJob.values().stream().filter(s -> s.size() > 1).count();
  }

  long checks() {
    return checks.get();
  }

  List<BatchJob> jobs() {
    return jobs.getStore().list();
  }

  @Override
  public void close() {
    jobs.close();
    pods.close();
    nodes.close();
  }
}
