package io.octomy.batch.controller.aggregated;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;

/**
 * How the API server in front says who a request is from, as it publishes it in ConfigMap {@code
 * kube-system/extension-apiserver-authentication} (its {@code --requestheader-*} flags): the CA of
 * its front-proxy client certificate, the names that certificate may carry, and the headers that
 * hold the user, uid, groups and extra attributes.
 *
 * @param clientCaPem the CA that signs the front-proxy client certificate, PEM
 * @param allowedNames common names the client certificate may have; empty: any it signed
 */
public record RequestHeaderSettings(
    String clientCaPem,
    List<String> allowedNames,
    List<String> usernameHeaders,
    List<String> uidHeaders,
    List<String> groupHeaders,
    List<String> extraHeaderPrefixes) {

  public static final String CONFIG_MAP_NAMESPACE = "kube-system";
  public static final String CONFIG_MAP_NAME = "extension-apiserver-authentication";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Reads the ConfigMap's data.
   *
   * @throws IllegalArgumentException with what to do when the API server publishes no front-proxy
   *     CA (it was started without {@code --requestheader-client-ca-file}) or a value is not a JSON
   *     list of strings
   */
  public static RequestHeaderSettings from(Map<String, String> data) {
    String ca = data == null ? null : data.get("requestheader-client-ca-file");
    if (ca == null || ca.isBlank()) {
      throw new IllegalArgumentException(
          CONFIG_MAP_NAMESPACE
              + "/"
              + CONFIG_MAP_NAME
              + " has no requestheader-client-ca-file: the API server was started without"
              + " --requestheader-client-ca-file and cannot call aggregated APIs. Start it with the"
              + " front-proxy flags (--requestheader-*, --proxy-client-cert-file), or run the"
              + " controller with --visibility-port=-1.");
    }
    return new RequestHeaderSettings(
        ca,
        list(data, "requestheader-allowed-names"),
        list(data, "requestheader-username-headers"),
        list(data, "requestheader-uid-headers"),
        list(data, "requestheader-group-headers"),
        list(data, "requestheader-extra-headers-prefix"));
  }

  private static List<String> list(Map<String, String> data, String key) {
    String value = data.get(key);
    if (value == null || value.isBlank()) {
      return List.of();
    }
    try {
      return List.of(JSON.readValue(value, String[].class));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          CONFIG_MAP_NAMESPACE
              + "/"
              + CONFIG_MAP_NAME
              + " key "
              + key
              + " is not a JSON list of strings: "
              + value,
          e);
    }
  }
}
