package io.octomy.batch.evidence;

import java.time.Duration;

/**
 * Clients that POST one prepared body over and over, each on its own kept-alive HTTPS connection:
 * the load of the write-path benchmark. Two kinds, so that what the clients themselves cost on the
 * shared processors can be told from what the server costs: {@link RawCreates} (the JDK's client,
 * in this JVM) and {@link ApacheBenchCreates} ({@code ab -k}, the tool the first figures were taken
 * with).
 */
interface CreateClients {

  /**
   * Every client POSTs {@code body} until {@code creates} were answered or {@code limit} passed,
   * whichever is first; {@code query} is added to the URL (e.g. {@code dryRun=All}).
   */
  RawCreates.Round run(String body, String query, int creates, Duration limit)
      throws InterruptedException;

  /** Processor time the clients have used so far, in seconds (this JVM's included). */
  double processorSeconds();

  /** What the clients are, for the figures' header. */
  String describe();
}
