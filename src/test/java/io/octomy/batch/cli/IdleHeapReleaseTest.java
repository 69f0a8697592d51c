package io.octomy.batch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** Changes three manageable heap settings of the test JVM itself; none alters what tests see. */
class IdleHeapReleaseTest {

  private final HotSpotDiagnosticMXBean vm =
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

  @Test
  void aG1HeapIsReturnedAfterQuietIntervalsButASettingAlreadyMadeIsKept() {
    assertThat(vm.getVMOption("UseG1GC").getValue())
        .as("the build's JVMs run G1, the default collector on two cores or more")
        .isEqualTo("true");
    // Made before, as a user's flag would be: not a default any more, so it stays.
    vm.setVMOption("G1PeriodicGCInterval", "60000");

    IdleHeapRelease.apply();

    assertThat(vm.getVMOption("MinHeapFreeRatio").getValue())
        .isEqualTo(IdleHeapRelease.MIN_FREE_PERCENT);
    assertThat(vm.getVMOption("MaxHeapFreeRatio").getValue())
        .isEqualTo(IdleHeapRelease.MAX_FREE_PERCENT);
    assertThat(vm.getVMOption("G1PeriodicGCInterval").getValue()).isEqualTo("60000");
  }
}
