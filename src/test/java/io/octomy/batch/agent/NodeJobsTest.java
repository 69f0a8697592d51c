package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.NodeJob;
import io.octomy.batch.vocabulary.JobPhase;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Executor records as {@code status.jobs} entries. */
class NodeJobsTest {

  private static final RunKey KEY = new RunKey("studio", "mesh", "uid-1");

  @Test
  void aFinishedRecordWithItsMeasurements() {
    JobRecord r =
        new JobRecord(
            KEY,
            RunPhase.Failed,
            3,
            JobRecord.REASON_FAILED,
            "the command exited with code 3",
            42L,
            Instant.parse("2030-01-01T00:00:01.5Z"),
            Instant.parse("2030-01-01T00:01:00Z"));
    NodeJob j = NodeJobs.of(r, new UsageSummary(1500, 700, 300, 200, 5));
    assertThat(j.getNamespace()).isEqualTo("studio");
    assertThat(j.getName()).isEqualTo("mesh");
    assertThat(j.getUid()).isEqualTo("uid-1");
    assertThat(j.getPhase()).isEqualTo(JobPhase.Failed);
    assertThat(j.getReason()).isEqualTo("Failed");
    assertThat(j.getExitCode()).isEqualTo(3);
    assertThat(j.getStartedAt()).isEqualTo("2030-01-01T00:00:01Z");
    assertThat(j.getFinishedAt()).isEqualTo("2030-01-01T00:01:00Z");
    assertThat(j.getUsage())
        .isEqualTo(
            Map.of(MeasuredResources.CPU_MILLI, 1500L, MeasuredResources.MEMORY_BYTES, 300L));
    assertThat(j.getMeanUsage())
        .isEqualTo(Map.of(MeasuredResources.CPU_MILLI, 700L, MeasuredResources.MEMORY_BYTES, 200L));
  }

  @Test
  void nothingMeasuredMeansNoUsageRatherThanZero() {
    JobRecord r = new JobRecord(KEY, RunPhase.Running, null, null, null, 42L, Instant.EPOCH, null);
    assertThat(NodeJobs.of(r, null).getUsage()).isNull();
    assertThat(NodeJobs.of(r, UsageSummary.EMPTY).getMeanUsage()).isNull();
    assertThat(NodeJobs.of(r, null).getFinishedAt()).isNull();
  }

  @Test
  void carryOverLeavesOtherJobsAlone() {
    NodeJob fresh =
        NodeJobs.failed(
            KEY,
            LaunchPlan.NO_COMMAND,
            "the template has no command; a Process node runs a command, not an image.");
    NodeJob other = NodeJobs.failed(new RunKey("studio", "other", "uid-2"), "Failed", null);
    other.setUsage(Map.of(MeasuredResources.CPU_MILLI, 5L));
    List<NodeJob> out = NodeJobs.carryOver(List.of(other), List.of(fresh));
    assertThat(out)
        .singleElement()
        .satisfies(
            j -> {
              assertThat(j.getUsage()).isNull();
              assertThat(j.getReason()).isEqualTo(LaunchPlan.NO_COMMAND);
            });
    assertThat(out.get(0)).isNotSameAs(fresh).isEqualTo(fresh);
  }
}
