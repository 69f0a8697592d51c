package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles admissions whose status write ended without an answer (a timeout, a server error): such a
 * write may have landed, so forgetting it could hand its capacity out twice before the cache shows
 * the truth. Before each pass every uncertain admission is settled by what is known for sure:
 *
 * <ul>
 *   <li>the cache has moved past the versions the write (and the finalizer write before it) was
 *       conditional on: the cache is the truth (if the write landed, the next version carries it),
 *       so the assumption is dropped and the cache's copy decides;
 *   <li>otherwise the job is read from the server: the same version means the write did not land
 *       (forgotten, decided again); a newer one carrying this admission means it landed (held as a
 *       write in flight until the cache shows it); gone means nothing is held;
 *   <li>no answer: it stays held, and is read again before the next pass.
 * </ul>
 */
final class AdmissionReadBack {

  private static final Logger LOG = LoggerFactory.getLogger(AdmissionReadBack.class);

  private final AssumedAdmissions assumed;
  private final ClusterWriter writer;

  AdmissionReadBack(AssumedAdmissions assumed, ClusterWriter writer) {
    this.assumed = assumed;
    this.writer = writer;
  }

  /** Settles what can be settled; {@code cached} is the pass's jobs by key. */
  void settle(JobsByKey cached) {
    assumed.uncertainOnes().forEach((key, a) -> settle(key, a, cached.get(key)));
  }

  private void settle(JobKey key, AssumedAdmissions.Assumed a, BatchJob cached) {
    if (cached == null || !a.uid().equals(cached.getMetadata().getUid())) {
      assumed.forget(key); // gone from the cache: it holds nothing
      return;
    }
    if (!a.uncertainOver().contains(cached.getMetadata().getResourceVersion())) {
      assumed.forget(key); // the cache shows what followed the write: it decides
      return;
    }
    ClusterWriter.ReadBack read = writer.readJob(key.namespace(), key.name());
    if (read instanceof ClusterWriter.ReadBack.NoAnswer none) {
      LOG.debug("admission of {} still uncertain: {}", key, none.why());
    } else if (read instanceof ClusterWriter.ReadBack.Found found
        && a.uid().equals(found.job().getMetadata().getUid())
        && !a.uncertainOver().contains(found.job().getMetadata().getResourceVersion())
        && carries(found.job().getStatus(), a)) {
      assumed.settle(key); // landed: held as a write in flight until the cache shows it
    } else {
      assumed.forget(key); // gone, or the server still holds the version it was written on
    }
  }

  /** Whether the server's status carries this admission. */
  private static boolean carries(BatchJobStatus status, AssumedAdmissions.Assumed a) {
    return status != null
        && status.getPhase() != null
        && status.getPhase().holdsReservation()
        && Objects.equals(status.getNode(), a.node())
        && Objects.equals(
            status.getReplicaNodes() == null ? List.of() : status.getReplicaNodes(),
            a.replicaNodes());
  }
}
