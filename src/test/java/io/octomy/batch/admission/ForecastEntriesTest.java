package io.octomy.batch.admission;

import static io.octomy.batch.admission.Fixtures.NS;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A forecast's entries read as the map of what was set, in the order each job was first set. */
class ForecastEntriesTest {

  private final PassState pass =
      AdmissionPass.prepared(
              world().with(job("a"), job("b"), job("c")).snapshot(), PassMemory.empty(), false)
          .state();

  private PreparedJob prepared(String name) {
    return pass.job(new JobKey(NS, name));
  }

  @Test
  void readsAsTheMapOfWhatWasSetInTheOrderFirstSet() {
    ForecastEntries<String> entries = new ForecastEntries<>(pass.jobs(), pass::job);
    entries.set(prepared("c"), "c1");
    entries.set(prepared("a"), "a1");
    entries.set(prepared("c"), "c2"); // replaced where it stands

    Map<JobKey, String> expected = new LinkedHashMap<>();
    expected.put(new JobKey(NS, "c"), "c2");
    expected.put(new JobKey(NS, "a"), "a1");
    assertThat(entries).isEqualTo(expected).hasSameHashCodeAs(expected);
    assertThat(List.copyOf(entries.keySet())).containsExactlyElementsOf(expected.keySet());
    assertThat(List.copyOf(entries.values())).containsExactly("c2", "a1");
    assertThat(entries.get(new JobKey(NS, "b"))).as("in the pass, never set").isNull();
    assertThat(entries.containsKey(new JobKey(NS, "b"))).isFalse();
    assertThat(entries.get(new JobKey("elsewhere", "a"))).as("not in the pass").isNull();
    assertThat(entries.get("studio/a")).as("not a key").isNull();
    assertThat(entries.containsKey(new JobKey(NS, "a"))).isTrue();
  }
}
