package io.octomy.batch.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.vocabulary.JobPhase;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Copies, comparisons and hashes follow the JSON of each status type, so a new field needs one
 * change: the field (with its getter and setter). Every property is checked from the JSON side: a
 * value is set through JSON, and the copy must keep it and a change to it alone must be seen.
 */
class StatusFieldsTest {

  static Stream<Class<?>> statusTypes() {
    return Stream.of(
        BatchJobStatus.class, NodeJob.class, BatchNodeStatus.class, BatchJobProfileStatus.class);
  }

  @ParameterizedTest
  @MethodSource("statusTypes")
  <T> void everyPropertyIsCopiedComparedAndHashed(Class<T> type) {
    StatusFields<T> fields = StatusFields.of(type);
    T full = filled(type);
    JsonNode fullJson = Serialization.jsonMapper().valueToTree(full);
    assertThat(fields.names())
        .as("every property has a value in the test object")
        .allMatch(fullJson::has);

    T copy = fields.copy(full);
    assertThat(copy).isEqualTo(full).hasSameHashCodeAs(full).isNotSameAs(full);
    assertThat((JsonNode) Serialization.jsonMapper().valueToTree(copy)).isEqualTo(fullJson);

    for (String name : fields.names()) {
      ObjectNode without = fullJson.deepCopy();
      without.remove(name);
      T changed = Serialization.jsonMapper().convertValue(without, type);
      assertThat(changed).as(type.getSimpleName() + "." + name + " is compared").isNotEqualTo(full);
      assertThat(fields.equal(full, changed, name)).as(name + " can be ignored by name").isTrue();
    }
  }

  /** A status type with one more field than BatchJobStatus, and nothing else added. */
  public static class StatusWithANewField extends BatchJobStatus {
    private String newField;

    public String getNewField() {
      return newField;
    }

    public void setNewField(String newField) {
      this.newField = newField;
    }
  }

  @Test
  void aNewFieldNeedsNoOtherChange() {
    StatusFields<StatusWithANewField> fields = StatusFields.of(StatusWithANewField.class);
    StatusWithANewField a = new StatusWithANewField();
    a.setPhase(JobPhase.Queued);
    a.setNewField("one");
    StatusWithANewField copy = fields.copy(a);
    assertThat(copy.getNewField()).isEqualTo("one");
    assertThat(fields.equal(a, copy)).isTrue();
    copy.setNewField("two");
    assertThat(fields.equal(a, copy)).isFalse();
    assertThat(fields.equal(a, copy, "newField")).isTrue();
  }

  @Test
  void pathsIntoListsIgnoreOnlyThatPropertyOfEachElement() {
    StatusFields<BatchJobStatus> fields = StatusFields.of(BatchJobStatus.class);
    BatchJobStatus a = new BatchJobStatus();
    a.setConditions(List.of(condition("Admitted", "True", "on n1")));
    BatchJobStatus reworded = fields.copy(a);
    reworded.setConditions(List.of(condition("Admitted", "True", "on n1, 1500 free")));
    BatchJobStatus flipped = fields.copy(a);
    flipped.setConditions(List.of(condition("Admitted", "False", "on n1")));

    assertThat(fields.equal(a, reworded)).isFalse();
    assertThat(fields.equal(a, reworded, "conditions/message")).isTrue();
    assertThat(fields.equal(a, flipped, "conditions/message")).isFalse();
  }

  @Test
  void aCopyIsIndependentOfItsSource() {
    BatchJobStatus a = new BatchJobStatus();
    a.setUsage(new TreeMap<>(Map.of("example.com/x", 1L)));
    BatchJobStatus copy = StatusFields.of(BatchJobStatus.class).copy(a);
    copy.getUsage().put("example.com/y", 2L);
    assertThat(a.getUsage()).containsOnlyKeys("example.com/x");
  }

  private static Condition condition(String type, String status, String message) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason("R")
        .withMessage(message)
        .withLastTransitionTime("2026-01-01T00:00:00Z")
        .build();
  }

  /** An object of {@code type} with a non-empty value in every property, set through JSON. */
  private static <T> T filled(Class<T> type) {
    return Serialization.jsonMapper().convertValue(sample(type(type), "root"), type);
  }

  private static JavaType type(Class<?> c) {
    return Serialization.jsonMapper().constructType(c);
  }

  private static JsonNode sample(JavaType type, String name) {
    JsonNodeFactory f = Serialization.jsonMapper().getNodeFactory();
    Class<?> raw = type.getRawClass();
    if (raw == String.class) {
      return f.textNode(
          name.endsWith("At") || name.endsWith("Time") ? "2026-01-01T00:00:00Z" : "v-" + name);
    }
    if (raw == Long.class || raw == long.class || raw == Integer.class || raw == int.class) {
      return f.numberNode(7);
    }
    if (raw == Boolean.class || raw == boolean.class) {
      return f.booleanNode(true);
    }
    if (raw == Double.class || raw == double.class) {
      return f.numberNode(0.5);
    }
    if (raw.isEnum()) {
      Object[] values = raw.getEnumConstants();
      return f.textNode(values[values.length - 1].toString());
    }
    if (type.isMapLikeType()) {
      ObjectNode m = f.objectNode();
      m.set("example.com/" + name.toLowerCase(), sample(type.getContentType(), name));
      return m;
    }
    if (type.isCollectionLikeType()) {
      return f.arrayNode().add(sample(type.getContentType(), name));
    }
    ObjectNode bean = f.objectNode();
    var mapper = Serialization.jsonMapper();
    for (BeanPropertyDefinition p :
        mapper.getDeserializationConfig().introspect(type).findProperties()) {
      bean.set(p.getName(), sample(p.getPrimaryType(), p.getName()));
    }
    return bean;
  }
}
