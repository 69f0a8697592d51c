package io.octomy.batch.controller.visibility;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobProfile;
import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.vocabulary.JobPhase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl octomy logs JOB --replica I}: a gang's replica's output is looked up on that
 * replica's node, as that replica's file.
 */
class GangOutputTest {

  private final BatchJob gang = gang();

  private final VisibilityService service =
      new VisibilityService(
          new VisibilitySource() {
            @Override
            public Optional<AdmissionLoop.LastPass> lastPass() {
              return Optional.empty();
            }

            @Override
            public Collection<BatchJob> jobs() {
              return List.of(gang);
            }

            @Override
            public Collection<BatchJobProfile> profiles() {
              return List.of();
            }
          },
          Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC),
          (node, namespace, name, uid, run, replica) ->
              Optional.of(Path.of("/state", node, uid + "." + run + "." + replica)));

  @Test
  void eachReplicasOutputIsItsOwnFileOnItsNode() {
    JobKey key = new JobKey("default", "mesh");
    assertThat(service.output(key, null, 1))
        .isEqualTo(
            new VisibilityService.JobOutput(
                "n2",
                new AgentOutputs.OutputRun("default", "mesh", "uid-mesh", 1, 1),
                Path.of("/state/n2/uid-mesh.1.1")));
    assertThat(service.output(key, null, null))
        .as("replica 0 by default")
        .isEqualTo(
            new VisibilityService.JobOutput(
                "n1",
                new AgentOutputs.OutputRun("default", "mesh", "uid-mesh", 1, 0),
                Path.of("/state/n1/uid-mesh.1.0")));
  }

  @Test
  void aReplicaTheGangDoesNotHaveIsRefusedWithTheRange() {
    assertThatThrownBy(() -> service.output(new JobKey("default", "mesh"), null, 2))
        .isInstanceOf(VisibilityException.class)
        .hasMessage("replica: Invalid value: 2: batchjob mesh has 2 replicas, 0 to 1.");
  }

  private static BatchJob gang() {
    BatchJob job = aJob("mesh").uid("uid-mesh").placed("n1", JobPhase.Running).build();
    job.getSpec().setReplicas(2);
    job.getStatus().setReplicaNodes(List.of("n1", "n2"));
    return job;
  }
}
