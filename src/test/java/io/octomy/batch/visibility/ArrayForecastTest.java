package io.octomy.batch.visibility;

import static io.octomy.batch.visibility.VisibilityWorld.CPU;
import static io.octomy.batch.visibility.VisibilityWorld.NOW;
import static io.octomy.batch.visibility.VisibilityWorld.NS;
import static io.octomy.batch.visibility.VisibilityWorld.job;
import static io.octomy.batch.visibility.VisibilityWorld.world;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.vocabulary.NodeMode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An array job in the answers: its items not created yet are forecast in the order the controller
 * creates them (at most maxRunning unfinished), so a job after the array starts when its last item
 * ends, and a fitted array manifest is answered for its first item with the whole array's end.
 */
class ArrayForecastTest {

  /**
   * ws-1 (8000) runs frames-0 and frames-1 (4000 each, render: 10 minutes) of an array of five, at
   * most two unfinished; encode needs all of ws-1 after the array.
   */
  static VisibilityWorld frames(boolean held) {
    return world()
        .node("ws-1", NodeMode.Drone, CPU, 8000)
        .runs("render", 10, 10, 10)
        .runs("mesh", 5, 5, 5)
        .array(job("frames").type("render").requests(CPU, 4000), 5, 2, held)
        .with(
            job("frames-0").type("render").requests(CPU, 4000).running("ws-1", 0),
            job("frames-1").type("render").requests(CPU, 4000).running("ws-1", 0),
            job("encode").type("mesh").requests(CPU, 8000).after("frames"));
  }

  @Test
  void aJobAfterAnArrayStartsWhenItsLastItemToComeEnds() {
    List<QueuedJob> queue = frames(false).visibility().queue(NS);
    // Items 2 and 3 run from minute 10 to 20, item 4 from 20 to 30; none of them is listed.
    assertThat(queue).extracting(QueuedJob::name).containsExactly("encode");
    assertThat(queue.get(0).position()).isEqualTo(1);
    assertThat(queue.get(0).expectedStart()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));
  }

  @Test
  void aHeldArrayCreatesNoMoreItemsSoNothingAfterItIsExpectedToStart() {
    List<QueuedJob> queue = frames(true).visibility().queue(NS);
    assertThat(queue).extracting(QueuedJob::name).containsExactly("encode");
    assertThat(queue.get(0).expectedStart()).isNull();
  }

  @Test
  void whyAJobAfterAnArrayWaitsNamesTheArrayAndItsEnd() {
    Explanation why = frames(false).visibility().why(new JobKey(NS, "encode")).orElseThrow();
    assertThat(why.job().reason()).isEqualTo("WaitingForDependency");
    assertThat(why.job().expectedStart()).isEqualTo(NOW.plus(Duration.ofMinutes(30)));
  }

  @Test
  void aFittedArrayIsAnsweredForItsFirstItemWithTheWholeArraysEnd() {
    VisibilityWorld idle =
        world().node("ws-1", NodeMode.Drone, CPU, 8000).runs("render", 10, 10, 10);
    FitAnswer fit =
        idle.visibility()
            .fit(job("shots").type("render").requests(CPU, 4000).view(), "render", null, 5, 2);
    assertThat(fit.admitted()).isTrue();
    assertThat(fit.node()).isEqualTo("ws-1");
    assertThat(fit.explanation().job().name()).isEqualTo("shots-0");
    // Two at a time, ten minutes each: 0 and 1, then 2 and 3, then 4.
    assertThat(fit.array())
        .isEqualTo(new FitAnswer.ArrayEnd(5, 2, NOW.plus(Duration.ofMinutes(30))));
    // A plain job is answered for itself, with no array.
    FitAnswer one =
        idle.visibility().fit(job("shot").type("render").requests(CPU, 4000).view(), "render");
    assertThat(one.array()).isNull();
    assertThat(one.explanation().job().name()).isEqualTo("shot");
  }
}
