package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The controller meets "restricted"; the agent falls short only by its read-only host mounts. */
class PodSecurityTest {

  @Test
  void controllerMeetsRestricted() {
    JsonNode spec = Chart.defaults().controllerPod().path("spec");
    assertThat(PodSecurity.restrictedViolations(spec)).isEmpty();
    JsonNode ctx = spec.at("/containers/0/securityContext");
    assertThat(ctx.path("readOnlyRootFilesystem").asBoolean()).isTrue();
    assertThat(spec.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(spec.at("/securityContext/seccompProfile/type").asText())
        .isEqualTo("RuntimeDefault");
    assertThat(ctx.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
    assertThat(HelmChartTest.texts(ctx.at("/capabilities/drop"))).containsExactly("ALL");
    // A read-only root needs somewhere to write: /tmp is an emptyDir.
    assertThat(HelmChartTest.mountOf(Chart.defaults().controllerPod(), "tmp")).isEqualTo("/tmp");
    assertThat(volume(spec, "tmp").has("emptyDir")).isTrue();
  }

  @Test
  void theCheckerCatchesWhatRestrictedForbids() {
    // Guards the checker itself: a widened pod must not pass silently.
    JsonNode spec = Chart.defaults().controllerPod().path("spec").deepCopy();
    var c = (ObjectNode) spec.at("/containers/0/securityContext");
    c.put("allowPrivilegeEscalation", true);
    c.putObject("capabilities").putArray("add").add("SYS_ADMIN");
    ((ObjectNode) spec).put("hostPID", true);
    ((ObjectNode) spec.path("securityContext")).put("runAsNonRoot", false);
    assertThat(PodSecurity.restrictedViolations(spec))
        .containsExactlyInAnyOrder(
            "hostPID",
            "controller: allowPrivilegeEscalation must be false",
            "controller: runAsNonRoot must be true",
            "controller: capabilities must drop ALL",
            "controller: adds capability SYS_ADMIN");
  }

  @Test
  void agentFallsShortOfRestrictedOnlyByItsHostPathVolumes() {
    // Baseline forbids every hostPath volume, read-only or not: hence the "privileged" namespace
    // level.
    JsonNode spec = Chart.defaults().agentPod().path("spec");
    assertThat(PodSecurity.restrictedViolations(spec))
        .containsExactlyInAnyOrder("hostPath volume cgroup", "hostPath volume proc");
    assertThat(spec.at("/containers/0/securityContext/readOnlyRootFilesystem").asBoolean())
        .isTrue();
  }

  @Test
  void agentMountsOnlyWhatItMeasuresAndOnlyReadOnly() {
    JsonNode spec = Chart.defaults().agentPod().path("spec");
    List<String> hostPaths = new ArrayList<>();
    for (JsonNode vol : spec.path("volumes")) {
      if (vol.has("hostPath")) {
        hostPaths.add(vol.at("/hostPath/path").asText());
        for (JsonNode m : spec.at("/containers/0/volumeMounts")) {
          if (m.path("name").asText().equals(vol.path("name").asText())) {
            assertThat(m.path("readOnly").asBoolean())
                .as("%s is mounted read-only", m.path("mountPath"))
                .isTrue();
          }
        }
      }
    }
    assertThat(hostPaths).containsExactlyInAnyOrder("/sys/fs/cgroup", "/proc");
    assertThat(spec.has("hostPID")).isFalse();
    assertThat(spec.has("hostNetwork")).isFalse();
  }

  @Test
  void securityContextSurvivesChangedValues() {
    JsonNode spec =
        Chart.template(Map.of("controller.replicas", "3", "image.tag", "9.9.9"))
            .controllerPod()
            .path("spec");
    assertThat(PodSecurity.restrictedViolations(spec)).isEmpty();
  }

  private static JsonNode volume(JsonNode spec, String name) {
    for (JsonNode v : spec.path("volumes")) {
      if (name.equals(v.path("name").asText())) {
        return v;
      }
    }
    throw new AssertionError("no volume " + name);
  }
}
