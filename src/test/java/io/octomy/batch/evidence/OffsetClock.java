package io.octomy.batch.evidence;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock plus an offset the benchmark moves forward, to age waiting jobs without waiting.
 */
final class OffsetClock extends Clock {
  private volatile Duration offset = Duration.ZERO;

  void advance(Duration d) {
    offset = offset.plus(d);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(offset);
  }
}
