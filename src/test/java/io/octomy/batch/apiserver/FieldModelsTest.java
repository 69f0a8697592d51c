package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JavaType;
import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import org.junit.jupiter.api.Test;

/** Models of built-in types are made once per class, whatever their shape. */
class FieldModelsTest {

  @Test
  void aClassWithFieldsIsModelledOnceAndKnowsThem() {
    JavaType entry = FieldModels.typeOf(ManagedFieldsEntry.class);

    FieldModel model = FieldModels.ofType(entry);

    assertThat(FieldModels.kept(entry)).isTrue();
    assertThat(FieldModels.ofType(entry)).isSameAs(model);
    assertThat(model.field("manager")).isNotNull();
    assertThat(model.field("noSuchField")).isNull();
  }

  @Test
  void aFreeFormClassIsKeptToo() {
    // Every managedFields entry of every request holds one: introspecting it each time was a
    // measurable share of a write's processor time.
    JavaType fieldsV1 = FieldModels.typeOf(FieldsV1.class);

    assertThat(FieldModels.ofType(fieldsV1)).isSameAs(FieldModel.ANY);
    assertThat(FieldModels.kept(fieldsV1)).isTrue();
  }

  @Test
  void aJsonSchemasAdditionalPropertiesIsAFieldAndACatchAllMapIsNot() {
    // A CRD's map fields are declared with additionalProperties: a model without it refused every
    // such CRD under kubectl's strict field validation.
    FieldModel schema = FieldModels.ofType(FieldModels.typeOf(JSONSchemaProps.class));
    assertThat(schema.field("additionalProperties")).isNotNull();
    assertThat(schema.field("properties")).isNotNull();

    FieldModel entry = FieldModels.ofType(FieldModels.typeOf(ManagedFieldsEntry.class));
    assertThat(entry.field("additionalProperties")).isNull();
  }
}
