package io.octomy.batch.agent;

/**
 * The resource names the agent reports for what it measures. They are conventions only: the
 * admission code treats them like any other domain-qualified name.
 */
public final class MeasuredResources {

  /** Thousandths of a logical processor. */
  public static final String CPU_MILLI = "octomy.io/cpu-milli";

  /** Bytes of memory. */
  public static final String MEMORY_BYTES = "octomy.io/memory-bytes";

  /** Whole GPUs. */
  public static final String GPU = "octomy.io/gpu";

  private MeasuredResources() {}
}
