package io.octomy.batch.cli;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets the JVM of a long-running workstation process give back heap it no longer needs.
 *
 * <p>Why: with default flags the JVM may grow its heap to a quarter of the machine's memory during
 * a burst of submissions and keep it committed while the system then sits mostly idle for hours. G1
 * returns unused heap when a concurrent cycle or a full collection ends, by the free ratios, and
 * starts such a cycle on its own after a quiet interval (JEP 346). All three settings are
 * manageable at run time, so the command a user types needs no JVM flags; a flag the user did set
 * is left as it is.
 */
final class IdleHeapRelease {

  private static final Logger LOG = LoggerFactory.getLogger(IdleHeapRelease.class);

  /** A collection at least this often (ms) while no other one happens. */
  static final String PERIODIC_INTERVAL_MS = "10000";

  /** After a cycle, at most this share of the heap is kept free (JVM default 70). */
  static final String MAX_FREE_PERCENT = "30";

  /** After a cycle, at least this share is kept free (JVM default 40; must not exceed the max). */
  static final String MIN_FREE_PERCENT = "10";

  private IdleHeapRelease() {}

  static void apply() {
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    if (vm == null || !"true".equals(vm.getVMOption("UseG1GC").getValue())) {
      return;
    }
    // The minimum first: the JVM refuses a maximum below the current minimum.
    setIfDefault(vm, "MinHeapFreeRatio", MIN_FREE_PERCENT);
    setIfDefault(vm, "MaxHeapFreeRatio", MAX_FREE_PERCENT);
    setIfDefault(vm, "G1PeriodicGCInterval", PERIODIC_INTERVAL_MS);
  }

  private static void setIfDefault(HotSpotDiagnosticMXBean vm, String name, String value) {
    try {
      if (vm.getVMOption(name).getOrigin() == VMOption.Origin.DEFAULT) {
        vm.setVMOption(name, value);
      }
    } catch (IllegalArgumentException e) {
      // An option this JVM does not know or will not take: the heap keeps its defaults.
      LOG.debug("JVM option {} left as it is: {}", name, e.getMessage());
    }
  }
}
