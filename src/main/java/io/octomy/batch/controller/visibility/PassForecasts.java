package io.octomy.batch.controller.visibility;

import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.visibility.QueuedJob;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The whole queue's forecast, computed at most once per controller pass, one computation at a time,
 * and shared by every reader: at 10,000 queued jobs one forecast costs seconds, and readers who
 * each computed their own piled up faster than they finished.
 *
 * <p>It is computed ahead of readers, in the background, after the first pass of a replica that
 * begins to lead (so the first page after a start finds one done) and after each pass while someone
 * read within {@link #READERS_LINGER}; a controller nobody looks at spends nothing. {@link #ofPass}
 * answers for the given pass, waiting for its computation; {@link #recent} answers at once with the
 * newest forecast done, however old (its pass says which), and waits only when none is done. The
 * last few answers are kept, so that the pages of one list ({@code continue}) come from one
 * forecast.
 */
final class PassForecasts {

  /** How many answers are kept for their continue tokens. */
  static final int KEPT = 4;

  /** How long after the last read each pass's forecast is still computed ahead of readers. */
  static final Duration READERS_LINGER = Duration.ofMinutes(1);

  /**
   * One forecast: the jobs of every namespace in pass order.
   *
   * @param generation numbers the answers of this server from 1, for continue tokens
   */
  record KeptForecast(long generation, AdmissionLoop.LastPass pass, List<QueuedJob> jobs) {}

  /** The computation of one pass's forecast and its answer. */
  private record Computation(AdmissionLoop.LastPass pass, CompletableFuture<KeptForecast> answer) {}

  /**
   * What asking for a pass's forecast gave: the computation to await, and whether the asker runs it
   * itself or it is to be started in the background.
   */
  private record Asked(Computation computation, boolean runHere, boolean startInBackground) {}

  private final Function<AdmissionLoop.LastPass, List<QueuedJob>> forecast;
  private final Executor background;
  private final Clock clock;
  private final Deque<KeptForecast> kept = new ArrayDeque<>();
  private long generation;
  private Computation running;
  private Computation next;
  private Instant lastRead;
  private AdmissionLoop.LastPass latestSeen;

  /**
   * @param forecast the whole queue of a pass, as of now
   * @param background where forecasts are computed ahead of readers, one at a time
   * @param clock tells how long ago the last read was
   */
  PassForecasts(
      Function<AdmissionLoop.LastPass, List<QueuedJob>> forecast,
      Executor background,
      Clock clock) {
    this.forecast = forecast;
    this.background = background;
    this.clock = clock;
  }

  /**
   * A pass has decided (called on the admission loop's thread, so it only hands work on): its
   * forecast is computed in the background when it is the first since this replica leads or someone
   * read within {@link #READERS_LINGER}.
   */
  void passDecided(AdmissionLoop.LastPass pass, boolean firstSinceActivated) {
    boolean wanted;
    synchronized (this) {
      seen(pass);
      wanted =
          firstSinceActivated
              || (lastRead != null && !lastRead.plus(READERS_LINGER).isBefore(clock.instant()));
    }
    if (wanted) {
      ask(pass, false);
    }
  }

  /** The forecast of {@code pass}: kept, under way, or computed now, and awaited. */
  KeptForecast ofPass(AdmissionLoop.LastPass pass) {
    read(pass);
    Asked a = ask(pass, true);
    if (a.runHere()) {
      compute(a.computation());
    }
    return join(a.computation().answer());
  }

  /**
   * The newest forecast done, at once, however old, with {@code pass}'s computed in the background
   * for the next read; with none done, the one under way (else {@code pass}'s) is awaited.
   */
  KeptForecast recent(AdmissionLoop.LastPass pass) {
    read(pass);
    KeptForecast newest;
    Computation underWay;
    synchronized (this) {
      newest = newest();
      underWay = running;
    }
    if (newest == null && underWay == null) {
      return ofPass(pass);
    }
    if (newest == null || newest.pass().snapshot().now().isBefore(pass.snapshot().now())) {
      ask(pass, false);
    }
    return newest != null ? newest : join(underWay.answer());
  }

  /** The kept answer of that generation, if it is still kept (a list's next page: a read too). */
  Optional<KeptForecast> generation(long number) {
    read(null);
    synchronized (this) {
      return kept.stream().filter(a -> a.generation() == number).findFirst();
    }
  }

  /**
   * Whether {@code answer} is of the latest pass known here (each pass is told by {@link
   * #passDecided}; without it, the readers' passes are all that is known).
   */
  synchronized boolean ofLatestPass(KeptForecast answer) {
    return answer.pass() == latestSeen;
  }

  private synchronized void read(AdmissionLoop.LastPass pass) {
    lastRead = clock.instant();
    if (pass != null) {
      seen(pass);
    }
  }

  private void seen(AdmissionLoop.LastPass pass) {
    if (latestSeen == null || latestSeen.snapshot().now().isBefore(pass.snapshot().now())) {
      latestSeen = pass;
    }
  }

  /** The kept answer of the latest pass (two computations may end out of order). */
  private KeptForecast newest() {
    KeptForecast newest = null;
    for (KeptForecast a : kept) {
      if (newest == null || !a.pass().snapshot().now().isBefore(newest.pass().snapshot().now())) {
        newest = a;
      }
    }
    return newest;
  }

  /**
   * The computation of {@code pass}'s forecast: a kept one, the one under way or waiting, or a new
   * one, which runs at once when none runs (here, or in the background) and else waits for the
   * running one to end, in place of any older pass's that waited (whose readers get the newer).
   */
  private Asked ask(AdmissionLoop.LastPass pass, boolean mayRunHere) {
    Asked asked = askLocked(pass, mayRunHere);
    if (asked.startInBackground()) {
      background.execute(() -> compute(asked.computation()));
    }
    return asked;
  }

  private synchronized Asked askLocked(AdmissionLoop.LastPass pass, boolean mayRunHere) {
    for (KeptForecast a : kept) {
      if (a.pass() == pass) {
        return new Asked(new Computation(pass, CompletableFuture.completedFuture(a)), false, false);
      }
    }
    if (running != null && running.pass() == pass) {
      return new Asked(running, false, false);
    }
    if (next != null
        && (next.pass() == pass || next.pass().snapshot().now().isAfter(pass.snapshot().now()))) {
      return new Asked(next, false, false);
    }
    Computation c = new Computation(pass, new CompletableFuture<>());
    if (running == null) {
      running = c;
      return new Asked(c, mayRunHere, !mayRunHere);
    }
    if (next != null) {
      Computation replaced = next;
      c.answer()
          .whenComplete(
              (done, failed) -> {
                if (failed != null) {
                  replaced.answer().completeExceptionally(failed);
                } else {
                  replaced.answer().complete(done);
                }
              });
    }
    next = c;
    return new Asked(c, false, false);
  }

  /** Runs one computation, keeps its answer, and starts the one that waited for it, if any. */
  private void compute(Computation c) {
    List<QueuedJob> jobs = null;
    Throwable failed = null;
    try {
      jobs = List.copyOf(forecast.apply(c.pass()));
    } catch (RuntimeException | Error e) {
      failed = e;
    }
    KeptForecast done = null;
    Computation following;
    synchronized (this) {
      if (failed == null) {
        done = new KeptForecast(++generation, c.pass(), jobs);
        kept.addLast(done);
        while (kept.size() > KEPT) {
          kept.removeFirst();
        }
      }
      running = next;
      next = null;
      following = running;
    }
    if (failed == null) {
      c.answer().complete(done);
    } else {
      c.answer().completeExceptionally(failed);
    }
    if (following != null) {
      background.execute(() -> compute(following));
    }
  }

  private static KeptForecast join(CompletableFuture<KeptForecast> answer) {
    try {
      return answer.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
