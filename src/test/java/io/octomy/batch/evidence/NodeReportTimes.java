package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.NodeJob;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one BatchNode's agent reported, as a watch sees it: for each job (by name), when its entry
 * in {@code status.jobs} was first seen at all and first seen finished ({@code System.nanoTime()}
 * on arrival); and how many status reports arrived. Beside {@link JobTimes} it splits a job's way
 * from admitted to finished into the agent's part and the controller's.
 */
final class NodeReportTimes implements AutoCloseable {

  private final SharedIndexInformer<BatchNode> informer;
  private final Map<String, Long> reported = new ConcurrentHashMap<>();
  private final Map<String, Long> finished = new ConcurrentHashMap<>();
  private final LongAdder reports = new LongAdder();

  NodeReportTimes(KubernetesClient client, String node) {
    informer =
        client
            .resources(BatchNode.class)
            .withName(node)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(BatchNode n) {
                    seen(n);
                  }

                  @Override
                  public void onUpdate(BatchNode before, BatchNode after) {
                    seen(after);
                  }

                  @Override
                  public void onDelete(BatchNode n, boolean unknown) {}
                });
  }

  private void seen(BatchNode n) {
    long now = System.nanoTime();
    reports.increment();
    if (n.getStatus() == null || n.getStatus().getJobs() == null) {
      return;
    }
    for (NodeJob j : n.getStatus().getJobs()) {
      reported.putIfAbsent(j.getName(), now);
      if (j.getPhase() != null && j.getPhase().isFinished()) {
        finished.putIfAbsent(j.getName(), now);
      }
    }
  }

  /** When the job's entry was first seen in a report, or null. */
  Long reported(String job) {
    return reported.get(job);
  }

  /** When the job's entry was first seen finished in a report, or null. */
  Long finished(String job) {
    return finished.get(job);
  }

  /** Status updates of the node seen so far (reports and anyone else's writes). */
  long reports() {
    return reports.sum();
  }

  @Override
  public void close() {
    informer.close();
  }
}
