package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CgroupPodMeterTest {

  private static final String UID = "0b5c6a7e-1f2d-4c3b-9a8e-7d6c5b4a3f21";
  private static final String UID_ = "0b5c6a7e_1f2d_4c3b_9a8e_7d6c5b4a3f21";
  private static final long MIB = 1L << 20;

  @TempDir Path root;
  private final FakeTicker ticker = new FakeTicker();

  private Path pod(String rel) throws Exception {
    Path dir = root.resolve(rel);
    Files.createDirectories(dir);
    return dir;
  }

  private static void set(Path dir, long usageUsec, long current) throws Exception {
    Files.writeString(
        dir.resolve("cpu.stat"),
        "usage_usec " + usageUsec + "\nuser_usec " + usageUsec / 2 + "\nsystem_usec 0\n");
    Files.writeString(dir.resolve("memory.current"), current + "\n");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "kubepods/pod" + UID,
        "kubepods/burstable/pod" + UID,
        "kubepods/besteffort/pod" + UID,
        "kubepods.slice/kubepods-pod" + UID_ + ".slice",
        "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_ + ".slice",
        "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + UID_ + ".slice",
        // kind nests the systemd layout under kubelet.slice: found by the bounded search
        "kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
            + "kubelet-kubepods-besteffort-pod"
            + UID_
            + ".slice"
      })
  void findsThePodUnderEveryLayout(String rel) throws Exception {
    Path dir = pod(rel);
    pod("kubepods/burstable/pod11111111-2222-3333-4444-555555555555"); // another pod
    assertThat(PodCgroupLocator.find(root, UID)).contains(dir);
  }

  @Test
  void measuresCpuFromUsageDeltasAndMemoryFromCurrentAndPeak() throws Exception {
    Path dir =
        pod("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + UID_ + ".slice");
    CgroupPodMeter meter = new CgroupPodMeter(root, UID, ticker);

    set(dir, 5_000_000, 100 * MIB);
    assertThat(meter.sample()).isTrue(); // baseline

    ticker.advanceMillis(1000);
    set(dir, 6_500_000, 300 * MIB); // 1.5 s of cpu in 1 s
    assertThat(meter.sample()).isTrue();

    ticker.advanceMillis(1000);
    set(dir, 7_000_000, 100 * MIB); // 0.5 s in 1 s
    Files.writeString(dir.resolve("memory.peak"), (512 * MIB) + "\n");
    assertThat(meter.sample()).isTrue();

    UsageSummary s = meter.summary();
    assertThat(s.peakCpuMilli()).isEqualTo(1500);
    assertThat(s.meanCpuMilli()).isEqualTo(1000);
    assertThat(s.peakMemoryBytes()).isEqualTo(512 * MIB); // the kernel saw a spike we did not
    assertThat(s.meanMemoryBytes()).isEqualTo(200 * MIB);
    assertThat(s.samples()).isEqualTo(3);
  }

  @Test
  void aPodNotThereYetIsPickedUpLater() throws Exception {
    CgroupPodMeter meter = new CgroupPodMeter(root, UID, ticker);
    assertThat(meter.sample()).isFalse();
    set(pod("kubepods/besteffort/pod" + UID), 0, 10 * MIB);
    assertThat(meter.sample()).isTrue();
    assertThat(meter.summary().peakMemoryBytes()).isEqualTo(10 * MIB);
  }

  @Test
  void aRemovedPodStopsSamplingAndKeepsWhatWasSeen() throws Exception {
    Path dir = pod("kubepods/pod" + UID);
    CgroupPodMeter meter = new CgroupPodMeter(root, UID, ticker);
    set(dir, 0, 42 * MIB);
    assertThat(meter.sample()).isTrue();
    Files.delete(dir.resolve("cpu.stat"));
    Files.delete(dir.resolve("memory.current"));
    Files.delete(dir);
    ticker.advanceMillis(500);
    assertThat(meter.sample()).isFalse();
    assertThat(meter.summary().peakMemoryBytes()).isEqualTo(42 * MIB);
  }

  @Test
  void readingChangesNothingInTheTree() throws Exception {
    Path dir = pod("kubepods/burstable/pod" + UID);
    set(dir, 1000, 2000);
    long before = Files.getLastModifiedTime(dir.resolve("cpu.stat")).toMillis();
    String[] names;
    try (var list = Files.list(dir)) {
      names = list.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
    }
    CgroupPodMeter meter = new CgroupPodMeter(root, UID, ticker);
    meter.sample();
    meter.sample();
    try (var list = Files.list(dir)) {
      assertThat(list.map(p -> p.getFileName().toString()).sorted()).containsExactly(names);
    }
    assertThat(Files.getLastModifiedTime(dir.resolve("cpu.stat")).toMillis()).isEqualTo(before);
  }
}
