package io.octomy.batch.cli;

import java.util.concurrent.CompletableFuture;

/**
 * Gives the JVM's common pool at least two threads, so that asynchronous completions that name no
 * executor share that pool instead of each starting a thread of its own.
 *
 * <p>Why: {@link CompletableFuture} runs an asynchronous stage without an executor on the common
 * pool only while the pool's parallelism is two or more; below that it starts a new thread for
 * every such stage. The pool's default is one less than the processors, so on one or two processors
 * every one of them is a new thread. The JDK's HTTP client, which the controller and agent reach
 * the API server with, completes every response that way, and {@link Process#onExit()} every
 * process exit: a recording of the queue benchmark on two processors counted 8,184 threads started
 * and ended in 67 s, and with the server, controller and clients in one JVM the controller decided
 * 1.11 to 1.18 times as fast once they shared the pool (docs/benchmarks.md). The pool reads the
 * property once, when it is made, so {@link #ensure()} runs first thing in {@code main}; a value
 * the user gave ({@code -Djava.util.concurrent.ForkJoinPool.common.parallelism=...}) is left as it
 * is.
 */
public final class AsyncCompletionPool {

  static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  /** The least parallelism at which {@link CompletableFuture} uses the common pool. */
  static final int AT_LEAST = 2;

  private AsyncCompletionPool() {}

  /** Sets the common pool's parallelism to two unless the user set it or the machine gives more. */
  public static void ensure() {
    if (System.getProperty(PARALLELISM) == null
        && Runtime.getRuntime().availableProcessors() - 1 < AT_LEAST) {
      System.setProperty(PARALLELISM, Integer.toString(AT_LEAST));
    }
  }
}
