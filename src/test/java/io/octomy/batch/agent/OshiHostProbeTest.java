package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OshiHostProbeTest {

  @Test
  void readsThisMachine() throws Exception {
    OshiHostProbe probe = new OshiHostProbe();
    Thread.sleep(50); // let the tick counters move so the load is a real number
    HostReadings r = probe.read();
    assertThat(r.logicalProcessors()).isPositive();
    assertThat(r.memoryBytes()).isGreaterThan(64L << 20);
    assertThat(r.gpus()).isNotNegative();
    assertThat(r.cpuMilliInUse()).isBetween(0L, r.logicalProcessors() * 1000L);
    assertThat(r.memoryBytesInUse()).isBetween(1L, r.memoryBytes());
    // The real machine flows through the capacity function like injected readings do.
    assertThat(NodeCapacity.of(r, CgroupBounds.NONE, null, null))
        .containsEntry("octomy.io/cpu-milli", r.logicalProcessors() * 1000L);
  }
}
