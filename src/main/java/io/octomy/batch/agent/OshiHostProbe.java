package io.octomy.batch.agent;

import java.time.Duration;
import java.util.function.Supplier;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.util.Memoizer;

/**
 * {@link HostProbe} backed by oshi-core. Processor use is the busy share of the system's tick
 * counters between two calls (the first call measures from construction), scaled to thousandths of
 * all logical processors.
 *
 * <p>Graphics cards are counted at most every {@link #GPU_RECOUNT}: on Linux oshi counts them by
 * running {@code lspci} and {@code lshw}, two processes per count, which the agent's reports (one
 * soon after every job start and end) must not pay each time.
 */
public final class OshiHostProbe implements HostProbe {

  /** How long a count of graphics cards is used before the cards are counted again. */
  static final Duration GPU_RECOUNT = Duration.ofMinutes(5);

  private final HardwareAbstractionLayer hardware;
  private final Supplier<Integer> gpus;
  private long[] previousTicks;

  public OshiHostProbe() {
    this(new SystemInfo().getHardware());
  }

  public OshiHostProbe(HardwareAbstractionLayer hardware) {
    this.hardware = hardware;
    this.gpus = Memoizer.memoize(() -> hardware.getGraphicsCards().size(), GPU_RECOUNT.toNanos());
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
    return new HostReadings(logical, total, gpus.get(), cpuMilli, inUse);
  }
}
