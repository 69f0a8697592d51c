package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's lookups over fabric8's own informer cache: the index by {@code status.node} follows a
 * job as the controller places it, moves it and as it goes; a run finds its job only under the same
 * uid.
 */
class InformedJobsTest {

  private final CacheImpl<BatchJob> cache = new CacheImpl<>();
  private InformedJobs jobs;

  @BeforeEach
  void index() {
    cache.addIndexers(InformedJobs.indexers());
    jobs = InformedJobs.of(cache);
  }

  @Test
  void aQueuedJobIsOnNoNodeAndAPlacedOneOnItsOwn() {
    cache.put(job("queued", "u1").build());
    cache.put(job("here", "u2").placed("ws-7", JobPhase.Admitted).build());
    cache.put(job("there", "u3").placed("ws-8", JobPhase.Running).build());

    assertThat(names("ws-7")).containsExactly("here");
    assertThat(names("ws-8")).containsExactly("there");
    assertThat(names("ws-9")).isEmpty();
  }

  @Test
  void theIndexFollowsUpdatesAndDeletes() {
    BatchJob queued = job("j", "u1").build();
    cache.put(queued);
    BatchJob admitted = job("j", "u1").placed("ws-7", JobPhase.Admitted).build();
    cache.put(admitted);
    assertThat(names("ws-7")).containsExactly("j");

    BatchJob finished = job("j", "u1").placed("ws-7", JobPhase.Succeeded).build();
    cache.put(finished);
    assertThat(jobs.placedOn("ws-7")).singleElement().isSameAs(finished);

    cache.remove(finished);
    assertThat(names("ws-7")).isEmpty();
  }

  @Test
  void aRunFindsItsJobOnlyUnderTheSameUid() {
    BatchJob job = job("j", "u1").build();
    cache.put(job);

    assertThat(jobs.jobOf(new RunKey("studio", "j", "u1"))).isSameAs(job);
    assertThat(jobs.jobOf(new RunKey("studio", "j", "u0"))).as("re-created").isNull();
    assertThat(jobs.jobOf(new RunKey("other", "j", "u1"))).isNull();
  }

  @Test
  void thePlainCollectionAnswersAsTheCache() {
    BatchJob here = job("here", "u2").placed("ws-7", JobPhase.Admitted).build();
    BatchJob queued = job("queued", "u1").build();
    InformedJobs plain = InformedJobs.of(List.of(here, queued));

    assertThat(plain.placedOn("ws-7")).containsExactly(here);
    assertThat(plain.jobOf(new RunKey("studio", "queued", "u1"))).isSameAs(queued);
    assertThat(plain.jobOf(new RunKey("studio", "queued", "u9"))).isNull();
  }

  private List<String> names(String node) {
    return jobs.placedOn(node).stream().map(j -> j.getMetadata().getName()).sorted().toList();
  }

  private static ApiFixtures.JobBuilder job(String name, String uid) {
    return ApiFixtures.aJob(name).namespace("studio").uid(uid);
  }
}
