package io.octomy.batch.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** How {@code kubectl octomy why} words a PendingJob's fair-share term. */
class JobReportTest {

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void theFairShareTermIsOneLineWithItsNumbers() throws Exception {
    JsonNode job =
        json.readTree(
            "{\"position\":2,\"namespacePosition\":1,\"effectivePriority\":225,"
                + "\"serviceClass\":\"Burstable\",\"reason\":\"WaitingForCapacity\","
                + "\"startBasis\":\"none\",\"fairShare\":{\"queue\":\"team-a\",\"weight\":1,"
                + "\"share\":0.75,\"deserved\":0.5,\"term\":125,\"most\":1000},\"blockers\":[]}");
    StringWriter text = new StringWriter();
    JobReport.print(new PluginOutput(new PrintWriter(text), Clock.systemUTC()), job);
    assertThat(text.toString())
        .contains(
            "Fair share:      +125 of at most 1000 to its priority: queue team-a (weight 1) holds"
                + " 0.75 of the pool against the 0.50 it deserves (the further below, the more it"
                + " adds).");
  }

  @Test
  void withoutQueuesThereIsNoFairShareLine() throws Exception {
    JsonNode job =
        json.readTree(
            "{\"position\":1,\"namespacePosition\":1,\"effectivePriority\":100,"
                + "\"reason\":\"Admitted\",\"startBasis\":\"now\",\"blockers\":[]}");
    StringWriter text = new StringWriter();
    JobReport.print(new PluginOutput(new PrintWriter(text), Clock.systemUTC()), job);
    assertThat(text.toString()).doesNotContain("Fair share");
  }
}
