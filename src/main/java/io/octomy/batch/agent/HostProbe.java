package io.octomy.batch.agent;

/**
 * Reads the machine the agent runs on. An interface so tests and the reporter can inject fixed
 * readings instead of probing real hardware.
 */
@FunctionalInterface
public interface HostProbe {

  /** Takes one reading now. Processor use covers the time since the previous call. */
  HostReadings read();
}
