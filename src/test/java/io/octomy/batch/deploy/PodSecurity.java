package io.octomy.batch.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The checks of the Kubernetes Pod Security Standards' "restricted" level (which includes
 * "baseline"), on a pod spec, as the PodSecurity admission plugin runs them. Returns what fails.
 */
final class PodSecurity {

  private static final Set<String> RESTRICTED_VOLUMES =
      Set.of(
          "configMap",
          "csi",
          "downwardAPI",
          "emptyDir",
          "ephemeral",
          "persistentVolumeClaim",
          "projected",
          "secret");

  private PodSecurity() {}

  static List<String> restrictedViolations(JsonNode spec) {
    List<String> v = new ArrayList<>();
    for (String host : List.of("hostNetwork", "hostPID", "hostIPC")) {
      if (spec.path(host).asBoolean(false)) {
        v.add(host);
      }
    }
    for (JsonNode vol : spec.path("volumes")) {
      vol.fieldNames()
          .forEachRemaining(
              f -> {
                if (!f.equals("name") && !RESTRICTED_VOLUMES.contains(f)) {
                  v.add(f + " volume " + vol.path("name").asText());
                }
              });
    }
    JsonNode podCtx = spec.path("securityContext");
    if (podCtx.path("sysctls").size() > 0) {
      v.add("sysctls");
    }
    List<JsonNode> containers = new ArrayList<>();
    spec.path("initContainers").forEach(containers::add);
    spec.path("containers").forEach(containers::add);
    for (JsonNode c : containers) {
      String name = c.path("name").asText();
      JsonNode ctx = c.path("securityContext");
      if (ctx.path("privileged").asBoolean(false)) {
        v.add(name + ": privileged");
      }
      if (!ctx.path("allowPrivilegeEscalation").isBoolean()
          || ctx.path("allowPrivilegeEscalation").asBoolean()) {
        v.add(name + ": allowPrivilegeEscalation must be false");
      }
      if (!effective(ctx, podCtx, "runAsNonRoot").asBoolean(false)) {
        v.add(name + ": runAsNonRoot must be true");
      }
      if (effective(ctx, podCtx, "runAsUser").asLong(-1) == 0) {
        v.add(name + ": runAsUser 0");
      }
      String seccomp =
          ctx.at("/seccompProfile/type").asText(podCtx.at("/seccompProfile/type").asText(""));
      if (!seccomp.equals("RuntimeDefault") && !seccomp.equals("Localhost")) {
        v.add(name + ": seccompProfile must be RuntimeDefault or Localhost");
      }
      if (!HelmChartTest.texts(ctx.at("/capabilities/drop")).contains("ALL")) {
        v.add(name + ": capabilities must drop ALL");
      }
      for (String add : HelmChartTest.texts(ctx.at("/capabilities/add"))) {
        if (!add.equals("NET_BIND_SERVICE")) {
          v.add(name + ": adds capability " + add);
        }
      }
      if (!ctx.path("procMount").asText("Default").equals("Default")) {
        v.add(name + ": procMount");
      }
      for (JsonNode port : c.path("ports")) {
        if (port.path("hostPort").asInt(0) != 0) {
          v.add(name + ": hostPort");
        }
      }
    }
    return v;
  }

  private static JsonNode effective(JsonNode container, JsonNode pod, String field) {
    return container.has(field) ? container.get(field) : pod.path(field);
  }
}
