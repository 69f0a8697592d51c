package io.octomy.batch.controller.visibility;

import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.controller.AdmissionLoop;
import java.util.Collection;
import java.util.Optional;

/**
 * What the visibility answers are read from: the controller's last pass and its caches. Nothing is
 * asked of the API server per answer but the profiles' run times (from a cache as well).
 */
public interface VisibilitySource {

  /** The last pass of the active controller; empty before it or on a replica that does not lead. */
  Optional<AdmissionLoop.LastPass> lastPass();

  /** The BatchJobs as the controller's cache holds them (for their types and start times). */
  Collection<BatchJob> jobs();

  /** The BatchJobProfiles (for the recorded run times of each job type). */
  Collection<BatchJobProfile> profiles();
}
