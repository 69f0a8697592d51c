package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import oshi.SystemInfo;
import oshi.hardware.HardwareAbstractionLayer;

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

  @Test
  void countsGraphicsCardsOnceForManyReads() {
    HardwareAbstractionLayer real = new SystemInfo().getHardware();
    AtomicInteger counts = new AtomicInteger();
    HardwareAbstractionLayer counting =
        (HardwareAbstractionLayer)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {HardwareAbstractionLayer.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getGraphicsCards")) {
                    counts.incrementAndGet();
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    OshiHostProbe probe = new OshiHostProbe(counting);

    int gpus = probe.read().gpus();
    for (int i = 0; i < 20; i++) {
      assertThat(probe.read().gpus()).isEqualTo(gpus);
    }

    assertThat(counts).hasValue(1);
  }
}
