package io.octomy.batch.controller.drift;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriftRecordTest {

  private final DriftRecord record =
      new DriftFolder()
          .fold(
              new DriftFolder()
                  .fold(
                      DriftRecord.empty(),
                      new FinishedRun(
                          "u1",
                          "mesh-export",
                          Map.of("octomy.io/cpu-milli", 4000L, "example.com/su2-processes", 4L),
                          Map.of("octomy.io/cpu-milli", 4000L),
                          Map.of("octomy.io/cpu-milli", 1300L))),
              new FinishedRun(
                  "u2",
                  "mesh-export",
                  Map.of("octomy.io/cpu-milli", 4000L),
                  Map.of("octomy.io/cpu-milli", 1000L),
                  Map.of("octomy.io/cpu-milli", 1100L)));

  @Test
  void theMapFormIsWhatTheStatusShows() {
    Map<String, Object> m = record.toMap();
    assertThat(m)
        .containsEntry("runs", 2L)
        .containsEntry("overLimitRuns", 1L)
        .containsEntry("foldedJobs", List.of("u1", "u2"));
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> res = (Map<String, Map<String, Object>>) m.get("resources");
    assertThat(res.get("octomy.io/cpu-milli"))
        .containsEntry("requested", 4000L)
        .containsEntry("usedP50", 1100L)
        .containsEntry("usedP95", 1300L)
        .containsEntry("usedMax", 1300L)
        .containsEntry("waste", 0.68)
        .containsEntry("suggestedRequest", 1400L)
        .containsEntry("samples", List.of(1300L, 1100L));
    // Absent, not null, when nothing was measured or requested in the latest run.
    assertThat(res).doesNotContainKey("example.com/su2-processes");
  }

  @Test
  void survivesJsonAndYamlRoundTrips() throws Exception {
    ObjectMapper json = new ObjectMapper();
    Map<?, ?> viaJson = json.readValue(json.writeValueAsString(record.toMap()), Map.class);
    assertThat(DriftRecord.fromMap(viaJson)).isEqualTo(record);
    YAMLMapper yaml = new YAMLMapper();
    Map<?, ?> viaYaml = yaml.readValue(yaml.writeValueAsString(record.toMap()), Map.class);
    assertThat(DriftRecord.fromMap(viaYaml)).isEqualTo(record);
    // The records serialize directly too, with the same field names.
    assertThat(json.readValue(json.writeValueAsString(record), Map.class)).isEqualTo(viaJson);
  }

  @Test
  void aMissingStatusStartsEmpty() {
    assertThat(DriftRecord.fromMap(null)).isEqualTo(DriftRecord.empty());
    assertThat(DriftRecord.fromMap(Map.of("runs", 3)))
        .isEqualTo(new DriftRecord(3, 0, Map.of(), List.of()));
  }
}
