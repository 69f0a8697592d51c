package io.octomy.batch.realcluster;

/** Retries an assertion until it holds or the time is up (then its last failure is thrown). */
final class Eventually {
  private Eventually() {}

  static void within(int seconds, Runnable assertion) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (true) {
      try {
        assertion.run();
        return;
      } catch (AssertionError | RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }
}
