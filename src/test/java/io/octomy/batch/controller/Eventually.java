package io.octomy.batch.controller;

import java.time.Duration;
import java.util.function.Supplier;

/** Waits for a condition with a deadline (awaitility is not available here). */
final class Eventually {
  private Eventually() {}

  static void until(Duration timeout, String what, Supplier<Boolean> condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    AssertionError last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (Boolean.TRUE.equals(condition.get())) {
          return;
        }
      } catch (AssertionError e) {
        last = e;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what);
      }
    }
    AssertionError e =
        new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
    if (last != null) {
      e.initCause(last);
    }
    throw e;
  }
}
