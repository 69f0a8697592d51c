package io.octomy.batch.evidence;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/** Runs {@code task(i)} for i in [0, n) on a fixed number of threads and waits for all. */
final class Parallel {
  private Parallel() {}

  static void forEach(int n, int threads, IntConsumer task) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        fs.add(
            pool.submit(
                () -> {
                  for (int i = first; i < n; i += threads) {
                    task.accept(i);
                  }
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("parallel task failed", e);
    } finally {
      pool.shutdownNow();
    }
  }
}
