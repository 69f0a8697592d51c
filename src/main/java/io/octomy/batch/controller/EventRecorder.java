package io.octomy.batch.controller;

import io.octomy.batch.api.BatchJob;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the loop's Events on a thread of their own, so that they never delay a status write. Which
 * go out one by one and which are folded into one Event with a count is {@link EventFolding}'s
 * rule; none is dropped.
 *
 * <p>Failure handling: a failed send is the writer's to log ({@link ClusterWriter#recordEvent}); it
 * is not retried, since an Event is a notice and the job's status is the record. {@link #close}
 * sends what is waiting, folds included, for up to five seconds; an Event offered after that is
 * logged and not sent.
 */
final class EventRecorder implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);

  /** Where Events go: one Event on {@code job} standing for {@code count} of its kind. */
  @FunctionalInterface
  interface Sink {
    void send(BatchJob job, JobEvent event, int count);
  }

  private record Outgoing(BatchJob job, JobEvent event, int count) {}

  private final Object lock = new Object();
  private final EventFolding folding = new EventFolding();
  private final ArrayDeque<Outgoing> waiting = new ArrayDeque<>();
  private final Sink sink;
  private final LongSupplier nanos;
  private final ControllerMetrics metrics;
  private final Thread sender;
  private boolean closing;

  /**
   * @param nanos a monotonic clock in nanoseconds ({@code System::nanoTime} outside tests)
   */
  EventRecorder(Sink sink, LongSupplier nanos, ControllerMetrics metrics) {
    this.sink = sink;
    this.nanos = nanos;
    this.metrics = metrics;
    this.sender = new Thread(this::sendAll, "event-recorder");
    sender.setDaemon(true);
    sender.start();
  }

  /** Offers an Event; it goes out on its own or folded with similar ones, never dropped. */
  void record(BatchJob job, JobEvent event) {
    synchronized (lock) {
      if (closing) {
        LOG.debug("event {} on {} offered after shutdown", event.reason(), job.getMetadata());
        return;
      }
      if (folding.offer(job, event, waiting.size(), nanos.getAsLong())) {
        waiting.add(new Outgoing(job, event, 1));
      } else {
        metrics.eventFolded();
      }
      lock.notifyAll();
    }
  }

  private void sendAll() {
    while (true) {
      Outgoing next;
      synchronized (lock) {
        next = nextLocked();
        if (next == null) {
          return;
        }
      }
      try {
        sink.send(next.job(), next.event(), next.count());
      } catch (RuntimeException e) {
        LOG.debug("event {} not recorded: {}", next.event().reason(), e.toString());
      }
    }
  }

  /** The next Event to send, waiting for one; null once closing and nothing is left. */
  private Outgoing nextLocked() {
    while (true) {
      long now = nanos.getAsLong();
      for (EventFolding.Fold f : folding.due(now)) {
        waiting.add(new Outgoing(f.regarding(), f.event(), f.count()));
      }
      if (!waiting.isEmpty()) {
        return waiting.poll();
      }
      if (closing) {
        return null;
      }
      long due = folding.nanosUntilDue(now);
      try {
        if (due < 0) {
          lock.wait();
        } else {
          lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(due)));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** Sends what is waiting, folds included, for up to five seconds. */
  @Override
  public void close() {
    synchronized (lock) {
      closing = true;
      for (EventFolding.Fold f : folding.all()) {
        waiting.add(new Outgoing(f.regarding(), f.event(), f.count()));
      }
      lock.notifyAll();
    }
    try {
      sender.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
