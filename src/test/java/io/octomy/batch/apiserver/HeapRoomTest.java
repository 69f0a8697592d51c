package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * When the heap takes a new object: readings of the old generation after a collection are scripted
 * (a collection asked for moves to the next one), as is the clock.
 */
class HeapRoomTest {

  private static final long MIB = 1 << 20;
  private static final HeapRoom.OldGeneration ROOMY =
      new HeapRoom.OldGeneration(100 * MIB, 200 * MIB, 400 * MIB);
  private static final HeapRoom.OldGeneration FULL =
      new HeapRoom.OldGeneration(380 * MIB, 390 * MIB, 400 * MIB);
  private static final HeapRoom.OldGeneration FILLED_WITH_GARBAGE =
      new HeapRoom.OldGeneration(100 * MIB, 390 * MIB, 400 * MIB);

  private final Deque<Optional<HeapRoom.OldGeneration>> readings = new ArrayDeque<>();
  private int collections;
  private long now = 1_000;
  private final HeapRoom room =
      new HeapRoom(
          () -> readings.getFirst(),
          () -> {
            collections++;
            if (readings.size() > 1) {
              readings.removeFirst();
            }
          },
          () -> now);

  private void read(HeapRoom.OldGeneration... script) {
    List.of(script).forEach(r -> readings.add(Optional.of(r)));
  }

  @Test
  void aHeapWithRoomTakesCreatesWithoutACollection() {
    read(ROOMY);

    assertThatCode(() -> room.requireRoomFor("ConfigMap")).doesNotThrowAnyException();
    assertThat(collections).isZero();
  }

  @Test
  void aJvmWithoutAReadingTakesEveryCreate() {
    readings.add(Optional.empty());

    assertThatCode(() -> room.requireRoomFor("ConfigMap")).doesNotThrowAnyException();
  }

  @Test
  void anOldGenerationWithoutAMaximumIsNeverFull() {
    read(new HeapRoom.OldGeneration(380 * MIB, 390 * MIB, -1));

    assertThatCode(() -> room.requireRoomFor("ConfigMap")).doesNotThrowAnyException();
  }

  @Test
  void anOldGenerationFilledSinceItsLastCollectionIsCollectedAndRead() {
    read(FILLED_WITH_GARBAGE, FULL);

    assertThatThrownBy(() -> room.requireRoomFor("BatchJob")).isInstanceOf(ApiException.class);
    assertThat(collections).isEqualTo(1);
  }

  @Test
  void garbageAloneRefusesNothing() {
    read(FILLED_WITH_GARBAGE, ROOMY);

    assertThatCode(() -> room.requireRoomFor("BatchJob")).doesNotThrowAnyException();
    assertThat(collections).isEqualTo(1);
  }

  @Test
  void aFullReadingIsTakenAgainAfterACollectionBeforeRefusing() {
    read(FULL, ROOMY);

    assertThatCode(() -> room.requireRoomFor("BatchJob")).doesNotThrowAnyException();
    assertThat(collections).isEqualTo(1);
  }

  @Test
  void aHeapStillFullAfterACollectionRefusesWith403SayingHowToMakeRoom() {
    read(FULL, FULL);

    assertThatThrownBy(() -> room.requireRoomFor("BatchJob"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(403);
              assertThat(e.toStatus().path("reason").asText()).isEqualTo("Forbidden");
            })
        .hasMessageContaining("BatchJob not created")
        .hasMessageContaining("380 of 400 MiB")
        .hasMessageContaining("Delete objects")
        .hasMessageContaining("java -Xmx4g -jar octomy-batch.jar standalone");
  }

  @Test
  void refusalsCollectAtMostOncePerRefreshPeriod() {
    read(FULL, FULL, FULL, ROOMY);

    assertThatThrownBy(() -> room.requireRoomFor("ConfigMap")).isInstanceOf(ApiException.class);
    now += HeapRoom.REFRESH_NANOS - 1;
    assertThatThrownBy(() -> room.requireRoomFor("ConfigMap")).isInstanceOf(ApiException.class);
    assertThat(collections).isEqualTo(1);

    now += 1;
    assertThatThrownBy(() -> room.requireRoomFor("ConfigMap")).isInstanceOf(ApiException.class);
    assertThat(collections).isEqualTo(2);

    now += HeapRoom.REFRESH_NANOS;
    assertThatCode(() -> room.requireRoomFor("ConfigMap")).doesNotThrowAnyException();
    assertThat(collections).isEqualTo(3);
  }

  @Test
  void thisJvmsOldGenerationIsRead() {
    assertThat(HeapRoom.ofThisJvm().reading())
        .hasValueSatisfying(r -> assertThat(r.max()).isPositive());
  }
}
