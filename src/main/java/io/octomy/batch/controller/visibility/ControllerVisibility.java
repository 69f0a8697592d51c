package io.octomy.batch.controller.visibility;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.controller.BatchController;
import java.time.Clock;
import java.util.Collection;
import java.util.Optional;

/**
 * The visibility API over a running controller: its last pass, its job cache, and an informer on
 * the BatchJobProfiles for the recorded run times. Close it with the controller.
 */
public final class ControllerVisibility implements VisibilitySource, AutoCloseable {

  private final BatchController controller;
  private final SharedIndexInformer<BatchJobProfile> profiles;
  private final VisibilityApi api;

  private ControllerVisibility(
      BatchController controller,
      SharedIndexInformer<BatchJobProfile> profiles,
      Clock clock,
      JobOutputs outputs,
      AgentOutputs agents) {
    this.controller = controller;
    this.profiles = profiles;
    VisibilityService service = new VisibilityService(this, clock, outputs);
    controller.loop().onPass(service::passDecided);
    this.api = new VisibilityApi(service, new ObjectMapper(), agents);
  }

  /**
   * Starts the profile informer and returns the API over the controller (this machine's output).
   */
  public static ControllerVisibility start(
      KubernetesClient client, BatchController controller, Clock clock, JobOutputs outputs) {
    return start(client, controller, clock, outputs, AgentOutputs.NONE);
  }

  /** As above, reading output kept elsewhere from its node's agent through {@code agents}. */
  public static ControllerVisibility start(
      KubernetesClient client,
      BatchController controller,
      Clock clock,
      JobOutputs outputs,
      AgentOutputs agents) {
    SharedIndexInformer<BatchJobProfile> informer =
        client.resources(BatchJobProfile.class).inAnyNamespace().inform();
    return new ControllerVisibility(controller, informer, clock, outputs, agents);
  }

  public VisibilityApi api() {
    return api;
  }

  @Override
  public Optional<AdmissionLoop.LastPass> lastPass() {
    return controller.loop().lastPass();
  }

  @Override
  public Collection<BatchJob> jobs() {
    return controller.caches().jobs();
  }

  @Override
  public Collection<BatchJobProfile> profiles() {
    return profiles.getStore().list();
  }

  @Override
  public void close() {
    profiles.close();
  }
}
