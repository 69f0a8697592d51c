package io.octomy.batch.agent;

import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.hardware.HardwareAbstractionLayer;

/**
 * {@link HostProbe} backed by oshi-core. Processor use is the busy share of the system's tick
 * counters between two calls (the first call measures from construction), scaled to thousandths of
 * all logical processors.
 */
public final class OshiHostProbe implements HostProbe {

  private final HardwareAbstractionLayer hardware;
  private long[] previousTicks;

  public OshiHostProbe() {
    this(new SystemInfo().getHardware());
  }

  public OshiHostProbe(HardwareAbstractionLayer hardware) {
    this.hardware = hardware;
    this.previousTicks = hardware.getProcessor().getSystemCpuLoadTicks();
  }

  @Override
  public synchronized HostReadings read() {
    CentralProcessor cpu = hardware.getProcessor();
    GlobalMemory memory = hardware.getMemory();
    int logical = cpu.getLogicalProcessorCount();
    double load = cpu.getSystemCpuLoadBetweenTicks(previousTicks);
    previousTicks = cpu.getSystemCpuLoadTicks();
    // No ticks elapsed (two calls within one jiffy) gives NaN; report idle rather than fail.
    long cpuMilli = Double.isFinite(load) ? Math.round(Math.max(0, load) * logical * 1000) : 0;
    long total = memory.getTotal();
    long inUse = Math.max(0, total - memory.getAvailable());
    return new HostReadings(logical, total, hardware.getGraphicsCards().size(), cpuMilli, inUse);
  }
}
