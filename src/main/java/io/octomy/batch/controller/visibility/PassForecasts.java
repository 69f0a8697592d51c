package io.octomy.batch.controller.visibility;

import io.octomy.batch.controller.AdmissionLoop;
import io.octomy.batch.visibility.QueuedJob;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The whole queue's forecast, computed at most once per controller pass and shared by every reader
 * of that pass: at 10,000 queued jobs one forecast costs seconds, and readers who each computed
 * their own (a page polling every 2 s, its reads cut by a proxy and sent again) piled up faster
 * than they finished. Nothing is computed without a reader.
 *
 * <p>{@link #ofPass} answers for the given pass, waiting for its one computation; {@link #recent}
 * answers at once with the newest forecast done when it is at most {@link #STALE_AT_MOST} older or
 * a newer one is under way, and has the given pass's computed in the background, one at a time. The
 * last few answers are kept, so that the pages of one list ({@code continue}) come from one
 * forecast.
 */
final class PassForecasts {

  /** How many answers are kept for their continue tokens. */
  static final int KEPT = 4;

  /** How much older than the last pass the pass of an answer given at once may be. */
  static final Duration STALE_AT_MOST = Duration.ofSeconds(60);

  /**
   * One forecast: the jobs of every namespace in pass order.
   *
   * @param generation numbers the answers of this server from 1, for continue tokens
   */
  record KeptForecast(long generation, AdmissionLoop.LastPass pass, List<QueuedJob> jobs) {}

  private final Function<AdmissionLoop.LastPass, List<QueuedJob>> forecast;
  private final Executor background;
  private final Deque<KeptForecast> kept = new ArrayDeque<>();
  private long generation;
  private AdmissionLoop.LastPass computingFor;
  private CompletableFuture<KeptForecast> computing;

  /**
   * @param forecast the whole queue of a pass, as of now
   * @param background where {@link #recent} computes a newer answer than it gives
   */
  PassForecasts(Function<AdmissionLoop.LastPass, List<QueuedJob>> forecast, Executor background) {
    this.forecast = forecast;
    this.background = background;
  }

  /** The forecast of {@code pass}, computed by the first caller and awaited by the others. */
  KeptForecast ofPass(AdmissionLoop.LastPass pass) {
    ForecastStart s = start(pass);
    if (s.run()) {
      compute(pass, s.answer());
    }
    return join(s.answer());
  }

  /**
   * The newest forecast done, when its pass is at most {@link #STALE_AT_MOST} older than {@code
   * pass} or a newer one is being computed (the forecast of {@code pass} then computed in the
   * background, unless one is under way); else as {@link #ofPass}. So readers who accept a recent
   * answer wait only when there is none, and never start a second computation beside one.
   */
  KeptForecast recent(AdmissionLoop.LastPass pass) {
    KeptForecast newest;
    boolean underWay;
    synchronized (this) {
      newest = newest();
      underWay = computing != null;
    }
    if (newest == null
        || (!underWay
            && newest
                .pass()
                .snapshot()
                .now()
                .plus(STALE_AT_MOST)
                .isBefore(pass.snapshot().now()))) {
      return ofPass(pass);
    }
    if (newest.pass() != pass && !underWay) {
      ForecastStart s = start(pass);
      if (s.run()) {
        background.execute(() -> compute(pass, s.answer()));
      }
    }
    return newest;
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

  /** The kept answer of that generation, if it is still kept. */
  synchronized Optional<KeptForecast> generation(long number) {
    return kept.stream().filter(a -> a.generation() == number).findFirst();
  }

  /** The computation of {@code pass}'s forecast: a kept one, the one under way, or a new one. */
  private synchronized ForecastStart start(AdmissionLoop.LastPass pass) {
    for (KeptForecast a : kept) {
      if (a.pass() == pass) {
        return new ForecastStart(CompletableFuture.completedFuture(a), false);
      }
    }
    if (computingFor == pass) {
      return new ForecastStart(computing, false);
    }
    computingFor = pass;
    computing = new CompletableFuture<>();
    return new ForecastStart(computing, true);
  }

  /** A computation, and whether its caller is the one to run it. */
  private record ForecastStart(CompletableFuture<KeptForecast> answer, boolean run) {}

  private void compute(AdmissionLoop.LastPass pass, CompletableFuture<KeptForecast> into) {
    try {
      List<QueuedJob> jobs = List.copyOf(forecast.apply(pass));
      KeptForecast done;
      synchronized (this) {
        done = new KeptForecast(++generation, pass, jobs);
        kept.addLast(done);
        while (kept.size() > KEPT) {
          kept.removeFirst();
        }
        if (computing == into) {
          computing = null;
          computingFor = null;
        }
      }
      into.complete(done);
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        if (computing == into) {
          computing = null;
          computingFor = null;
        }
      }
      into.completeExceptionally(e);
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
