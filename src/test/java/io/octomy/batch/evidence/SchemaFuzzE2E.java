package io.octomy.batch.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short version of {@link SchemaFuzz} in {@code mvn verify}: the bricking writes and a
 * seeded sample of the other shapes through every write verb, against standalone with its
 * controller and a Process agent, checked after each batch and after a restart at the end.
 */
class SchemaFuzzE2E {

  @TempDir Path work;

  @Test
  @Timeout(240)
  void damagedObjectsOnEveryVerbLeaveAProductThatServesRunsAndRestarts() throws Exception {
    SchemaFuzz.Result r = SchemaFuzz.run(work, 30, 15, 10, 7);
    System.out.println(r);
    r.examples().forEach(e -> System.out.println("  " + e));
    assertThat(r.shapes()).isEqualTo(30);
    assertThat(r.codes().keySet())
        .containsAll(SchemaFuzz.OBJECT_VERBS)
        .containsAll(SchemaFuzz.DELETE_VERBS);
    assertThat(r.restarts()).isEqualTo(1);
    assertThat(r.checkedAfterRestarts()).as("acknowledged objects read back").isPositive();
    assertThat(r.examples()).as(r.toString()).isEmpty();
    assertThat(r.passed()).as(r.toString()).isTrue();
  }
}
