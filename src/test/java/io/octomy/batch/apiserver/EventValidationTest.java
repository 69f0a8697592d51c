package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The real server's checks of Event writes. Each expected list is kube-apiserver v1.34's answer to
 * the same write (its causes, as {@code field: message}).
 */
class EventValidationTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String NAME_PART =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end"
          + " with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex"
          + " used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

  /** An Event created through events.k8s.io/v1, as stored (core form). */
  private static final String STARTED =
      """
      {"metadata":{"name":"render-c.started","namespace":"ev1"},
       "involvedObject":{"apiVersion":"batch.octomy.io/v1alpha1","kind":"BatchJob","name":"render-c","namespace":"ev1"},
       "reason":"Started","message":"started on ws-7","type":"Normal",
       "eventTime":"2025-01-01T00:00:00.000000Z","action":"Start",
       "reportingComponent":"octomy.io/agent","reportingInstance":"ws-7"}
      """;

  @Test
  void anOldStyleEventIsAboutAnObjectOfItsOwnNamespace() {
    assertThat(
            core(
                """
                {"metadata":{"name":"e","namespace":"ev1"},"reason":"Started",
                 "involvedObject":{"kind":"BatchJob","name":"render-c","namespace":"other"}}
                """))
        .containsExactly(
            "involvedObject.namespace: Invalid value: \"other\": does not match event.namespace");
    assertThat(
            core(
                """
                {"metadata":{"name":"e","namespace":"ev1"},"involvedObject":{"kind":"Pod","name":"p"}}
                """))
        .containsExactly(
            "involvedObject.namespace: Invalid value: \"\": does not match event.namespace");
    assertThat(
            core(
                """
                {"metadata":{"name":"e","namespace":"default"},"involvedObject":{"kind":"Node","name":"n"}}
                """))
        .as("an object of no namespace is reported in default")
        .isEmpty();
  }

  @Test
  void aNewStyleEventNamesWhoReportedItAndWhatWasDone() {
    assertThat(
            core(
                """
                {"metadata":{"name":"e","namespace":"ev1"},"eventTime":"2025-01-01T00:00:00.000000Z",
                 "involvedObject":{"kind":"Pod","name":"p","namespace":"ev1"}}
                """))
        .containsExactly(
            "reportingComponent: Required value",
            "reportingComponent: Invalid value: \"\": name part must be non-empty",
            "reportingComponent: Invalid value: \"\": " + NAME_PART,
            "reportingInstance: Required value",
            "action: Required value",
            "reason: Required value");
    assertThat(
            eventsV1Create(
                """
                {"metadata":{"name":"e","namespace":"ev1"},"eventTime":"2025-01-01T00:00:00.000000Z",
                 "involvedObject":{"kind":"Pod","name":"p","namespace":"ev1"},"type":"Normal",
                 "reportingComponent":"not a name!"}
                """))
        .as("named as the request names the field")
        .containsExactly(
            "reportingController: Invalid value: \"not a name!\": " + NAME_PART,
            "reportingInstance: Required value",
            "action: Required value",
            "reason: Required value");
  }

  @Test
  void aCreateThroughEventsV1NeedsAnEventTimeAndNoDeprecatedField() {
    assertThat(
            eventsV1Create(
                """
                {"metadata":{"name":"render-c.untimed","namespace":"ev1"},
                 "involvedObject":{"kind":"BatchJob","name":"render-c","namespace":"ev1"},
                 "reason":"Started","message":"no eventTime","type":"Normal","count":2}
                """))
        .containsExactly(
            "eventTime: Required value", "count: Invalid value: \"\": needs to be unset");
    ObjectNode badType = tree(STARTED);
    badType.put("type", "Info");
    badType.putObject("series").put("count", 1);
    assertThat(EventValidation.check(badType, null, true).stream().map(EventValidationTest::line))
        .containsExactly(
            "series.count: Invalid value: \"\": should be at least 2",
            "series.lastObservedTime: Required value",
            "type: Invalid value: \"\": has invalid value: Info");
    assertThat(eventsV1Create(STARTED)).isEmpty();
  }

  @Test
  void anUpdateThroughEventsV1ChangesOnlyMetadataAndTheSeries() {
    ObjectNode changed = tree(STARTED);
    changed.put("message", "finished on ws-7").put("count", 5);
    assertThat(update(changed, true))
        .containsExactly(
            "message: Invalid value: \"finished on ws-7\": field is immutable",
            "count: Invalid value: 5: field is immutable");
    assertThat(update(changed, false)).as("core v1 updates are not held to it").isEmpty();

    ObjectNode moved = tree(STARTED);
    moved.withObjectProperty("involvedObject").put("name", "other");
    moved.putObject("source").put("component", "x");
    moved.put("count", 5).put("type", "Warning").put("eventTime", "2025-01-01T00:00:01.500000Z");
    moved.put("firstTimestamp", "2025-01-01T00:00:00Z");
    moved.putObject("related").put("kind", "Pod").put("name", "q");
    moved.putObject("series").put("count", 1);
    assertThat(update(moved, true))
        .containsExactly(
            "series.count: Invalid value: \"\": should be at least 2",
            "series.lastObservedTime: Required value",
            "involvedObject: Invalid value: {\"Kind\":\"BatchJob\",\"Namespace\":\"ev1\","
                + "\"Name\":\"other\",\"UID\":\"\",\"APIVersion\":\"batch.octomy.io/v1alpha1\","
                + "\"ResourceVersion\":\"\",\"FieldPath\":\"\"}: field is immutable",
            "source: Invalid value: {\"Component\":\"x\",\"Host\":\"\"}: field is immutable",
            "firstTimestamp: Invalid value: \"2025-01-01T00:00:00Z\": field is immutable",
            "count: Invalid value: 5: field is immutable",
            "type: Invalid value: \"Warning\": field is immutable",
            "eventTime: Invalid value: \"2025-01-01T00:00:01.500000Z\": field is immutable",
            "related: Invalid value: {\"Kind\":\"Pod\",\"Namespace\":\"\",\"Name\":\"q\","
                + "\"UID\":\"\",\"APIVersion\":\"\",\"ResourceVersion\":\"\",\"FieldPath\":\"\"}:"
                + " field is immutable");

    ObjectNode labelledWithSeries = tree(STARTED);
    labelledWithSeries.withObjectProperty("metadata").putObject("labels").put("seen", "yes");
    labelledWithSeries
        .putObject("series")
        .put("count", 2)
        .put("lastObservedTime", "2025-01-01T00:10:00.000000Z");
    assertThat(update(labelledWithSeries, true)).isEmpty();
  }

  @Test
  void aChangedReasonIsNamedOnce() {
    ObjectNode changed = tree(STARTED);
    changed.put("reason", "Finished");
    assertThat(update(changed, true))
        .containsExactly("reason: Invalid value: \"Finished\": field is immutable");
  }

  private static List<String> core(String event) {
    return EventValidation.check(tree(event), null, false).stream()
        .map(EventValidationTest::line)
        .toList();
  }

  private static List<String> eventsV1Create(String event) {
    return EventValidation.check(tree(event), null, true).stream()
        .map(EventValidationTest::line)
        .toList();
  }

  private static List<String> update(ObjectNode changed, boolean eventsV1) {
    return EventValidation.check(changed, tree(STARTED), eventsV1).stream()
        .map(EventValidationTest::line)
        .toList();
  }

  private static String line(ApiException.Cause c) {
    return c.field() + ": " + c.message();
  }

  private static ObjectNode tree(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }
}
