package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.api.BatchJob;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** Which Events go out one by one, which are folded, and that none is lost. */
class EventFoldingTest {

  private static final long MS = 1_000_000L;

  private static BatchJob job(String namespace, String name) {
    BatchJob j = aJob(name).build();
    j.getMetadata().setNamespace(namespace);
    return j;
  }

  @Example
  void atOneHundredASecondEveryEventGoesOutOnItsOwn() {
    EventFolding f = new EventFolding();
    for (int i = 0; i < 1000; i++) {
      assertThat(f.offer(job("ns", "j" + i), JobEvent.normal("Admitted", "m"), 0, i * 10 * MS))
          .as("event %d", i)
          .isTrue();
    }
    assertThat(f.all()).isEmpty();
  }

  @Example
  void aBurstBeyondTheRateIsFoldedBySimilarityAndSentOnceTheFoldIsFiveSecondsOld() {
    EventFolding f = new EventFolding();
    int alone = 0;
    for (int i = 0; i < 1000; i++) {
      String reason = i % 2 == 0 ? "Admitted" : "Succeeded";
      if (f.offer(job("ns", "j" + i), JobEvent.normal(reason, "said of j" + i), 0, 0)) {
        alone++;
      }
    }
    assertThat(alone).isEqualTo(EventFolding.RATE);
    assertThat(f.due(EventFolding.FOLD_NANOS - 1)).isEmpty();
    assertThat(f.nanosUntilDue(0)).isEqualTo(EventFolding.FOLD_NANOS);
    List<EventFolding.Fold> due = f.due(EventFolding.FOLD_NANOS);
    assertThat(due).extracting(EventFolding.Fold::count).containsExactly(450, 450);
    EventFolding.Fold admitted = due.get(0);
    assertThat(admitted.regarding().getMetadata().getName()).isEqualTo("j998");
    assertThat(admitted.event())
        .isEqualTo(
            JobEvent.normal(
                "Admitted",
                "(combined from 450 similar events on j100, j102, j104 and 447 more): said of"
                    + " j998"));
    assertThat(f.nanosUntilDue(EventFolding.FOLD_NANOS)).isEqualTo(-1);
  }

  @Example
  void namespacesAndTypesAreNotFoldedTogether() {
    EventFolding f = new EventFolding();
    for (int i = 0; i < EventFolding.RATE; i++) {
      f.offer(job("ns", "warm" + i), JobEvent.normal("Admitted", "m"), 0, 0);
      f.offer(job("ns", "warn" + i), JobEvent.warning("Admitted", "m"), 0, 0);
    }
    f.offer(job("a", "x"), JobEvent.normal("Admitted", "m"), 0, 0);
    f.offer(job("b", "y"), JobEvent.normal("Admitted", "m"), 0, 0);
    f.offer(job("a", "z"), JobEvent.warning("Admitted", "m"), 0, 0);
    assertThat(f.all()).extracting(EventFolding.Fold::count).containsExactly(1, 1, 1);
  }

  @Example
  void aFoldOfOneIsSentAsTheEventItWas() {
    EventFolding f = new EventFolding();
    for (int i = 0; i < EventFolding.RATE; i++) {
      f.offer(job("ns", "warm" + i), JobEvent.normal("Admitted", "m"), 0, 0);
    }
    f.offer(job("quiet", "only"), JobEvent.normal("Admitted", "admitted on n1."), 0, 0);
    List<EventFolding.Fold> folds = f.all();
    assertThat(folds).extracting(EventFolding.Fold::count).containsExactly(1);
    assertThat(folds.get(0).event()).isEqualTo(JobEvent.normal("Admitted", "admitted on n1."));
    assertThat(folds.get(0).regarding().getMetadata().getName()).isEqualTo("only");
  }

  @Example
  void aFloodOfAdmissionsDoesNotFoldARejection() {
    EventFolding f = new EventFolding();
    for (int i = 0; i < 1000; i++) {
      f.offer(job("ns", "j" + i), JobEvent.normal("Admitted", "m"), 0, 0);
    }
    assertThat(f.offer(job("ns", "bad"), JobEvent.warning("Rejected", "m"), 0, 0)).isTrue();
  }

  @Example
  void aboveTheRateEveryEventIsFoldedNotOnlyTheExcessAndAtTheRateAgainNoneIs() {
    EventFolding f = new EventFolding();
    long now = 0;
    int alone = 0;
    int offered = 0;
    for (; now < 5_000 * MS; now += 5 * MS, offered++) { // 200 a second for five seconds
      if (f.offer(job("ns", "j" + offered), JobEvent.normal("Admitted", "m"), 0, now)) {
        alone++;
      }
    }
    assertThat(alone).as("only the first second's first hundred").isEqualTo(EventFolding.RATE);
    int aloneAfterASecond = 0;
    long slowFrom = now;
    for (; now < slowFrom + 3_000 * MS; now += 10 * MS, offered++) { // then 100 a second
      boolean out = f.offer(job("ns", "j" + offered), JobEvent.normal("Admitted", "m"), 0, now);
      if (now >= slowFrom + 1_000 * MS) {
        assertThat(out).as("at %d ms", (now - slowFrom) / MS).isTrue();
        aloneAfterASecond++;
      }
    }
    assertThat(aloneAfterASecond).isEqualTo(200);
  }

  @Example
  void aBacklogOfUnsentEventsFoldsNewOnesWhateverTheRate() {
    EventFolding f = new EventFolding();
    assertThat(f.offer(job("ns", "j"), JobEvent.normal("Admitted", "m"), EventFolding.BACKLOG, 0))
        .isFalse();
    assertThat(f.offer(job("ns", "k"), JobEvent.normal("Admitted", "m"), 0, 0)).isTrue();
  }

  record Arrival(String namespace, String reason, long gapMicros) {}

  @Provide
  Arbitrary<List<Arrival>> arrivals() {
    Arbitrary<Arrival> a =
        Combinators.combine(
                Arbitraries.of("a", "b"),
                Arbitraries.of("Admitted", "Succeeded", "Failed"),
                Arbitraries.frequencyOf(
                    Tuple.of(6, Arbitraries.longs().between(0, 50)),
                    Tuple.of(3, Arbitraries.longs().between(0, 20_000)),
                    Tuple.of(1, Arbitraries.longs().between(0, 2_000_000))))
            .as(Arrival::new);
    return a.list().ofMaxSize(3000);
  }

  @Property(tries = 200)
  void noEventIsLostAndNoneGoesOutOnItsOwnAboveTheRate(@ForAll("arrivals") List<Arrival> in) {
    EventFolding f = new EventFolding();
    long now = 0;
    long alone = 0;
    long folded = 0;
    List<Long> aloneAt = new ArrayList<>();
    for (int i = 0; i < in.size(); i++) {
      Arrival a = in.get(i);
      now += a.gapMicros() * 1000;
      for (EventFolding.Fold d : f.due(now)) {
        folded += d.count();
      }
      if (f.offer(job(a.namespace(), "j" + i), JobEvent.normal(a.reason(), "m"), 0, now)) {
        alone++;
        aloneAt.add(now);
      }
    }
    for (EventFolding.Fold d : f.all()) {
      folded += d.count();
    }
    assertThat(alone + folded).as("every event accounted for once").isEqualTo(in.size());
    // In any window of length T from the first event, at most RATE * (1 + T) go out alone.
    for (int i = 0; i < aloneAt.size(); i++) {
      for (int j = i; j < aloneAt.size(); j += 37) {
        double seconds = (aloneAt.get(j) - aloneAt.get(i)) / 1e9;
        assertThat(j - i + 1)
            .isLessThanOrEqualTo((int) Math.floor(EventFolding.RATE * (1 + seconds)));
      }
    }
  }
}
