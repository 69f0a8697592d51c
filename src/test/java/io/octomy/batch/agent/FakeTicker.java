package io.octomy.batch.agent;

/** A ticker tests move by hand. */
final class FakeTicker implements Ticker {

  private long nanos;

  @Override
  public long nanos() {
    return nanos;
  }

  void advanceMillis(long ms) {
    nanos += ms * 1_000_000L;
  }
}
