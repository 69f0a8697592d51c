package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The version a finalizer write made, read from the answer without binding it. */
class JobWriteRequestsTest {

  private static String versionOf(String json) {
    return JobWriteRequests.resourceVersionOf(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theVersionIsReadFromTheObjectsOwnMetadataWhereverItStands() {
    assertThat(
            versionOf(
                "{\"apiVersion\":\"batch.octomy.io/v1alpha1\",\"kind\":\"BatchJob\","
                    + "\"spec\":{\"template\":{\"metadata\":{\"resourceVersion\":\"spec\"}},"
                    + "\"command\":[\"a\",{\"b\":[1,2]}]},"
                    + "\"metadata\":{\"name\":\"a\",\"labels\":{\"resourceVersion\":\"label\"},"
                    + "\"managedFields\":[{\"fieldsV1\":{\"f:metadata\":{}}}],"
                    + "\"resourceVersion\":\"42\",\"uid\":\"u\"},\"status\":{}}"))
        .isEqualTo("42");
  }

  @Test
  void noVersionIsNull() {
    assertThat(versionOf("{\"metadata\":{\"name\":\"a\"}}")).isNull();
    assertThat(versionOf("{\"kind\":\"Status\",\"code\":409}")).isNull();
    assertThat(versionOf("{\"metadata\":{\"resourceVersion\":42}}")).isNull();
    assertThat(versionOf("{\"metadata\":\"resourceVersion\"}")).isNull();
    assertThat(versionOf("[{\"metadata\":{\"resourceVersion\":\"1\"}}]")).isNull();
    assertThat(versionOf("{\"metadata\":{\"resourceVersion\":")).isNull();
    assertThat(versionOf("")).isNull();
    assertThat(JobWriteRequests.resourceVersionOf(null)).isNull();
  }
}
