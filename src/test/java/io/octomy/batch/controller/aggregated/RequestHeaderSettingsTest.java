package io.octomy.batch.controller.aggregated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The API server's request-header settings as kube-system/extension-apiserver-authentication holds
 * them.
 */
class RequestHeaderSettingsTest {

  @Test
  void readsTheListsTheApiServerPublishes() {
    RequestHeaderSettings s =
        RequestHeaderSettings.from(
            Map.of(
                "client-ca-file", "other",
                "requestheader-client-ca-file", "PEM",
                "requestheader-allowed-names", "[\"front-proxy-client\",\"aggregator\"]",
                "requestheader-username-headers", "[\"X-Remote-User\"]",
                "requestheader-group-headers", "[\"X-Remote-Group\"]",
                "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]"));
    assertThat(s)
        .isEqualTo(
            new RequestHeaderSettings(
                "PEM",
                List.of("front-proxy-client", "aggregator"),
                List.of("X-Remote-User"),
                List.of(),
                List.of("X-Remote-Group"),
                List.of("X-Remote-Extra-")));
  }

  @Test
  void anApiServerWithoutAFrontProxyCaIsNamedWithTheWayOut() {
    assertThatThrownBy(() -> RequestHeaderSettings.from(Map.of("client-ca-file", "PEM")))
        .hasMessage(
            "kube-system/extension-apiserver-authentication has no requestheader-client-ca-file:"
                + " the API server was started without --requestheader-client-ca-file and cannot"
                + " call aggregated APIs. Start it with the front-proxy flags (--requestheader-*,"
                + " --proxy-client-cert-file), or run the controller with --visibility-port=-1.");
    assertThatThrownBy(
            () ->
                RequestHeaderSettings.from(
                    Map.of(
                        "requestheader-client-ca-file", "PEM",
                        "requestheader-group-headers", "X-Remote-Group")))
        .hasMessage(
            "kube-system/extension-apiserver-authentication key requestheader-group-headers is not"
                + " a JSON list of strings: X-Remote-Group");
  }
}
