package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Labels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Pod executor's side: Pods found by job uid, measured from a fake cgroup tree. */
class PodJobsTest {

  private static final String POD_UID = "0b5c6a7e-1f2d-4c3b-9a8e-7d6c5b4a3f21";
  private static final long MIB = 1L << 20;

  @TempDir Path root;
  private final List<Pod> pods = new ArrayList<>();
  private final PodJobs tracker = new PodJobs("ws-7", () -> pods, null);

  private PodJobs tracker() {
    return new PodJobs("ws-7", () -> pods, root);
  }

  @Test
  void measuresARunningPodAndReportsItsPhase() throws Exception {
    Path dir = Files.createDirectories(root.resolve("kubepods/burstable/pod" + POD_UID));
    write(dir, 1_000_000, 300 * MIB);
    BatchJob job = job("mesh", "job-uid-1", "ws-7");
    pods.add(pod(POD_UID, "job-uid-1", "Running"));
    pods.add(pod("other-pod", "job-uid-2", "Running")); // its job is not here

    PodJobs t = tracker();
    assertThat(t.reconcile(InformedJobs.of(List.of(job, job("elsewhere", "job-uid-2", "ws-8")))))
        .isTrue();
    t.sample();
    write(dir, 1_500_000, 500 * MIB);
    t.sample();
    write(dir, 1_600_000, 200 * MIB);
    t.sample();

    NodeJob j = t.reports().get(0);
    assertThat(t.reports()).hasSize(1);
    assertThat(j.getName()).isEqualTo("mesh");
    assertThat(j.getUid()).isEqualTo("job-uid-1");
    assertThat(j.getPhase()).isEqualTo(JobPhase.Running);
    assertThat(j.getUsage()).containsEntry(MeasuredResources.MEMORY_BYTES, 500 * MIB);
    assertThat(j.getMeanUsage().get(MeasuredResources.MEMORY_BYTES))
        .isBetween(200 * MIB, 500 * MIB);
  }

  @Test
  void aFinishedPodReportsItsExitCodeAndAPendingOneNothing() {
    Pod done = pod("p1", "job-uid-1", "Failed");
    done.getStatus()
        .setContainerStatuses(
            List.of(
                new ContainerStatusBuilder()
                    .withName("main")
                    .withNewState()
                    .withNewTerminated()
                    .withExitCode(137)
                    .withReason("OOMKilled")
                    .withFinishedAt("2030-01-01T00:10:00Z")
                    .endTerminated()
                    .endState()
                    .build()));
    pods.add(done);
    pods.add(pod("p2", "job-uid-2", "Pending"));
    tracker.reconcile(
        InformedJobs.of(List.of(job("a", "job-uid-1", "ws-7"), job("b", "job-uid-2", "ws-7"))));
    tracker.sample(); // nothing running: no cgroup is looked up (the root is null)
    assertThat(tracker.reports())
        .singleElement()
        .satisfies(
            j -> {
              assertThat(j.getPhase()).isEqualTo(JobPhase.Failed);
              assertThat(j.getExitCode()).isEqualTo(137);
              assertThat(j.getReason()).isEqualTo("OOMKilled");
              assertThat(j.getFinishedAt()).isEqualTo("2030-01-01T00:10:00Z");
              assertThat(j.getUsage()).isNull();
            });
  }

  private static void write(Path dir, long usageUsec, long memory) throws Exception {
    Files.writeString(dir.resolve("cpu.stat"), "usage_usec " + usageUsec + "\n");
    Files.writeString(dir.resolve("memory.current"), memory + "\n");
  }

  private static BatchJob job(String name, String uid, String node) {
    return ApiFixtures.aJob(name)
        .namespace("studio")
        .uid(uid)
        .placed(node, JobPhase.Running)
        .build();
  }

  private static Pod pod(String podUid, String jobUid, String phase) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("pod-" + podUid)
        .withNamespace("studio")
        .withUid(podUid)
        .addToLabels(Labels.JOB_UID, jobUid)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .withStartTime("2030-01-01T00:00:00Z")
        .endStatus()
        .build();
  }
}
