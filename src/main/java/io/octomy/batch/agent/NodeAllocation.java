package io.octomy.batch.agent;

import io.octomy.batch.api.AdmissionRecord;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.vocabulary.Quantities;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the jobs admitted to a node hold: the sum of the requests recorded at admission ({@code
 * status.admission}) of every BatchJob whose {@code status.node} is the node and whose phase holds
 * a reservation (Admitted or Running), once per gang replica placed there, for {@code
 * BatchNode.status.allocated}. Finished jobs have released theirs.
 */
public final class NodeAllocation {

  private NodeAllocation() {}

  /**
   * True when {@code job}'s status names {@code nodeName} ({@code status.node}, or one of a gang's
   * {@code status.replicaNodes}), whatever its phase.
   */
  public static boolean placedOn(BatchJob job, String nodeName) {
    BatchJobStatus s = job.getStatus();
    return s != null
        && (nodeName.equals(s.getNode())
            || (s.getReplicaNodes() != null && s.getReplicaNodes().contains(nodeName)));
  }

  /** True when {@code job} is admitted to or running on {@code nodeName}. */
  public static boolean holdsPlaceOn(BatchJob job, String nodeName) {
    return placedOn(job, nodeName)
        && job.getStatus().getPhase() != null
        && job.getStatus().getPhase().holdsReservation();
  }

  /**
   * @return resource name to summed request, sorted by name; empty when nothing is admitted. Sums
   *     saturate at {@link Long#MAX_VALUE}: no input can stop the report.
   */
  public static Map<String, Long> of(String nodeName, Collection<BatchJob> jobs) {
    Map<String, Long> sum = new TreeMap<>();
    for (BatchJob job : jobs) {
      if (!holdsPlaceOn(job, nodeName)) {
        continue;
      }
      Map<String, Long> held = held(job);
      // A gang's request is per replica: a node holds one copy per replica placed on it.
      int copies = Math.max(1, GangReplicas.on(job, nodeName).size());
      if (held != null) {
        held.forEach(
            (name, qty) -> {
              if (qty != null && qty > 0) {
                sum.merge(name, times(qty, copies), Quantities::add);
              }
            });
      }
    }
    return sum;
  }

  /** {@code qty * copies}, saturating like {@link Quantities#add}; copies is at most 1000. */
  private static long times(long qty, int copies) {
    long out = 0;
    for (int i = 0; i < copies; i++) {
      out = Quantities.add(out, qty);
    }
    return out;
  }

  /**
   * What the job holds: the requests recorded when it was admitted, as the controller counts them;
   * for a job admitted before records were kept, its spec's. Malformed quantities are kept aside by
   * the deserializer, so every value here is whole.
   */
  private static Map<String, Long> held(BatchJob job) {
    AdmissionRecord record = job.getStatus().getAdmission();
    if (record != null) {
      return record.getRequests();
    }
    return job.getSpec() == null || job.getSpec().getResources() == null
        ? null
        : job.getSpec().getResources().getRequests();
  }
}
