package io.octomy.batch.agent;

/**
 * A monotonic time source in nanoseconds, injectable so meters can be tested with exact deltas.
 * Wall-clock time would jump with NTP adjustments and distort rates.
 */
@FunctionalInterface
public interface Ticker {

  /** Nanoseconds from an arbitrary fixed origin; only differences mean anything. */
  long nanos();

  /** The JVM's monotonic clock. */
  static Ticker system() {
    return System::nanoTime;
  }
}
