package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every metadata shape a typed Kubernetes reader cannot read is a cause at its field path, so the
 * commit (every write verb) refuses it and a start-up sets a stored row of it aside; the shapes
 * those readers do read pass.
 */
class MetadataShapesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static List<ApiException.Cause> causes(String metadataFields) throws Exception {
    ObjectNode object =
        (ObjectNode)
            JSON.readTree(
                "{\"metadata\":{\"name\":\"j\",\"namespace\":\"default\""
                    + (metadataFields.isEmpty() ? "" : "," + metadataFields)
                    + "}}");
    return CommitGuard.metadataCauses("/batchjobs", "default", "j", object);
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "'\"ownerReferences\":\"x\"'|metadata.ownerReferences|must be of type array",
        "'\"ownerReferences\":[1]'|metadata.ownerReferences[0]|must be of type object",
        "'\"ownerReferences\":{\"name\":\"p\"}'|metadata.ownerReferences|must be of type array",
        "'\"ownerReferences\":[null]'|metadata.ownerReferences[0]|must be of type object",
        "'\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"p\"}]'"
            + "|metadata.ownerReferences[0].uid|Required value",
        "'\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":{},"
            + "\"uid\":\"u\"}]'|metadata.ownerReferences[0].name|must be of type string",
        "'\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"p\","
            + "\"uid\":\"u\",\"controller\":\"yes\"}]'"
            + "|metadata.ownerReferences[0].controller|must be of type boolean",
        "'\"labels\":\"x\"'|metadata.labels|must be a map",
        "'\"labels\":{\"a\":null}'|metadata.labels|label values must be strings",
        "'\"labels\":{\"a\":{}}'|metadata.labels|label values must be strings",
        "'\"annotations\":[1]'|metadata.annotations|map",
        "'\"annotations\":{\"a\":1}'|metadata.annotations|must be a string",
        "'\"finalizers\":\"x\"'|metadata.finalizers|must be a list",
        "'\"finalizers\":[null]'|metadata.finalizers[0]|must be a string",
        "'\"finalizers\":[{}]'|metadata.finalizers[0]|must be a string",
        "'\"managedFields\":\"x\"'|metadata.managedFields|must be of type array",
        "'\"managedFields\":[1]'|metadata.managedFields[0]|must be of type object",
        "'\"managedFields\":[{\"manager\":{}}]'|metadata.managedFields[0].manager|type string",
        "'\"managedFields\":[{\"fieldsV1\":\"f\"}]'|metadata.managedFields[0].fieldsV1|object",
        "'\"generateName\":{}'|metadata.generateName|must be of type string",
        "'\"generateName\":[\"j-\"]'|metadata.generateName|must be of type string",
        "'\"uid\":7'|metadata.uid|must be of type string",
        "'\"generation\":\"two\"'|metadata.generation|must be of type integer",
      })
  void aShapeNoTypedReaderReadsIsACauseAtItsPath(String fields, String path, String message)
      throws Exception {
    assertThat(causes(fields))
        .anySatisfy(
            c -> {
              assertThat(c.field()).isEqualTo(path);
              assertThat(c.message()).contains(message);
            });
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''",
        "'\"ownerReferences\":[{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\","
            + "\"name\":\"p\",\"uid\":\"u\",\"controller\":true,\"blockOwnerDeletion\":true}]'",
        "'\"ownerReferences\":null,\"labels\":null,\"creationTimestamp\":null'",
        "'\"managedFields\":[{\"manager\":\"kubectl\",\"operation\":\"Update\","
            + "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":{}}}]'",
        "'\"generateName\":\"j-\",\"labels\":{\"a\":\"b\"},\"finalizers\":[\"example.com/f\"]'",
      })
  void theShapesTypedReadersReadPass(String fields) throws Exception {
    assertThat(causes(fields)).isEmpty();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      value = {"'\"x\"'", "'[1]'", "'7'"})
  void metadataThatIsNotAMappingIsACause(String metadata) throws Exception {
    ObjectNode object = (ObjectNode) JSON.readTree("{\"metadata\":" + metadata + "}");
    List<ApiException.Cause> causes = new java.util.ArrayList<>();
    MetadataShapes.check(object.get("metadata"), causes);
    assertThat(causes)
        .singleElement()
        .satisfies(c -> assertThat(c.field()).isEqualTo("metadata"))
        .satisfies(c -> assertThat(c.message()).contains("must be of type object"));
  }
}
