package io.octomy.batch.realcluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Watches every BatchJob on the server and checks, on each change it sees, the two promises that
 * must hold through anything: each run of a job is admitted once (its node and admission time never
 * change once set; a retry is a new run with a decision of its own), and no node holds more than
 * its capacity in requests of admitted and running jobs (a gang's request once per replica on its
 * node).
 */
final class JobLedger implements AutoCloseable {

  private final SharedIndexInformer<BatchJob> informer;
  private final Map<String, Long> capacity;
  private final Map<String, String> admissions = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Long> peak = new HashMap<>();
  private long changes;

  /**
   * @param capacity per resource name, the same on every node
   */
  JobLedger(KubernetesClient client, Map<String, Long> capacity) {
    this.capacity = capacity;
    // Made, then started: every check reads the informer's store, so the field must be set before
    // the first event arrives (inform() starts delivering before it returns).
    this.informer = client.resources(BatchJob.class).inAnyNamespace().runnableInformer(0);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(BatchJob j) {
            check(j);
          }

          @Override
          public void onUpdate(BatchJob before, BatchJob after) {
            check(after);
          }

          @Override
          public void onDelete(BatchJob j, boolean unknown) {}
        });
    informer.start().toCompletableFuture().join(); // synced, as inform() returns
  }

  private synchronized void check(BatchJob j) {
    changes++;
    var s = j.getStatus();
    if (s == null || s.getNode() == null) {
      return;
    }
    String admission = s.getNode() + "@" + s.getAdmittedAt();
    String key = j.getMetadata().getUid() + "#" + s.currentRun();
    String first = admissions.putIfAbsent(key, admission);
    if (first != null && !first.equals(admission)) {
      violations.add(
          "admitted twice: " + j.getMetadata().getName() + " " + first + " then " + admission);
    }
    Map<String, Map<String, Long>> held = new HashMap<>();
    for (BatchJob other : informer.getStore().list()) {
      var os = other.getStatus();
      if (os == null
          || os.getNode() == null
          || (os.getPhase() != JobPhase.Admitted && os.getPhase() != JobPhase.Running)
          || other.getSpec().getResources() == null
          || other.getSpec().getResources().getRequests() == null) {
        continue;
      }
      List<String> nodes =
          os.getReplicaNodes() == null || os.getReplicaNodes().isEmpty()
              ? List.of(os.getNode())
              : os.getReplicaNodes();
      for (String node : nodes) {
        other
            .getSpec()
            .getResources()
            .getRequests()
            .forEach(
                (r, q) -> held.computeIfAbsent(node, n -> new HashMap<>()).merge(r, q, Long::sum));
      }
    }
    held.forEach(
        (node, sums) ->
            sums.forEach(
                (r, q) -> {
                  peak.merge(node + " " + r, q, Math::max);
                  Long cap = capacity.get(r);
                  if (cap != null && q > cap) {
                    violations.add(
                        "overcommitted: " + node + " holds " + q + " " + r + " of " + cap);
                  }
                }));
  }

  synchronized List<String> violations() {
    return List.copyOf(violations);
  }

  /** The most any node held of a resource at once, as "node resource" to amount. */
  synchronized Map<String, Long> peaks() {
    return Map.copyOf(peak);
  }

  synchronized long changes() {
    return changes;
  }

  @Override
  public void close() {
    informer.close();
  }
}
