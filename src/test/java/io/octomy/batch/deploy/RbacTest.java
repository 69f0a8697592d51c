package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Least privilege, checked on every variant of the values, and pinned by a reviewed golden file.
 */
class RbacTest {

  static final Path GOLDEN = Path.of("src/test/resources/deploy/rbac-golden.yaml");
  private static final Set<String> FORBIDDEN_VERBS =
      Set.of("*", "escalate", "bind", "impersonate", "deletecollection");

  /**
   * Roles every cluster has, bound for the aggregated visibility API: TokenReview and
   * SubjectAccessReview, and reading kube-system/extension-apiserver-authentication.
   */
  private static final Set<String> BUILT_IN_ROLES =
      Set.of("ClusterRole/system:auth-delegator", "Role/extension-apiserver-authentication-reader");

  private static final Set<String> WRITE_VERBS = Set.of("create", "update", "patch", "delete");

  /** One rule, flattened, with the role it belongs to. */
  record Rule(
      String role,
      List<String> apiGroups,
      List<String> resources,
      List<String> verbs,
      JsonNode raw) {}

  static Stream<Map<String, Object>> variants() {
    return Stream.of(
        Map.of(),
        Map.of("agent.restrictToOwnNode", "false"),
        Map.of(
            "controller.replicas",
            "1",
            "controller.leaderElection",
            "false",
            "metrics.serviceMonitor.enabled",
            "true",
            "grafanaDashboard.enabled",
            "true"));
  }

  static List<Rule> rules(Chart.Rendered r) {
    List<Rule> out = new ArrayList<>();
    for (JsonNode role : r.objects()) {
      String kind = role.path("kind").asText();
      if (!kind.equals("ClusterRole") && !kind.equals("Role")) {
        continue;
      }
      for (JsonNode rule : role.path("rules")) {
        out.add(
            new Rule(
                kind + "/" + role.at("/metadata/name").asText(),
                HelmChartTest.texts(rule.path("apiGroups")),
                HelmChartTest.texts(rule.path("resources")),
                HelmChartTest.texts(rule.path("verbs")),
                rule));
      }
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("variants")
  void noWildcardsSecretsOrPrivilegeVerbs(Map<String, Object> values) {
    List<Rule> rules = rules(Chart.template(values));
    assertThat(rules).anyMatch(RbacTest::forPeople);
    assertThat(rules).isNotEmpty();
    for (Rule rule : rules) {
      assertThat(rule.apiGroups()).as("%s", rule).doesNotContain("*").isNotEmpty();
      assertThat(rule.resources()).as("%s", rule).noneMatch(res -> res.contains("*")).isNotEmpty();
      if (isUninstallGuard(rule) || isOwnAudienceToken(rule)) {
        continue;
      }
      assertThat(rule.resources())
          .as("%s", rule)
          .doesNotContain(
              "secrets",
              "serviceaccounts",
              "serviceaccounts/token",
              "pods/exec",
              "pods/attach",
              "nodes/proxy",
              "roles",
              "clusterroles",
              "rolebindings",
              "clusterrolebindings");
      if (rule.resources().contains("configmaps")) {
        // Only the controller's record of cleaned-up jobs: created, then read and written by its
        // name; no list or watch, so no other ConfigMap is ever read.
        assertThat(rule.role()).as("%s", rule).endsWith("-controller");
        assertThat(rule.resources()).as("%s", rule).containsExactly("configmaps");
        if (rule.raw().has("resourceNames")) {
          assertThat(HelmChartTest.texts(rule.raw().path("resourceNames")))
              .as("%s", rule)
              .containsExactly("octomy-batch-succeeded-jobs");
          assertThat(rule.verbs()).as("%s", rule).containsExactlyInAnyOrder("get", "update");
        } else {
          assertThat(rule.verbs()).as("%s", rule).containsExactly("create");
        }
      }
      assertThat(rule.verbs()).as("%s", rule).doesNotContainAnyElementsOf(FORBIDDEN_VERBS);
      assertThat(rule.raw().has("nonResourceURLs")).as("%s", rule).isFalse();
    }
  }

  /**
   * The one exception to the list above: the controller's own ServiceAccount, ClusterRole and
   * ClusterRoleBinding, by their name only, to keep its uninstall guard (a finalizer) on them.
   */
  private static boolean isUninstallGuard(Rule rule) {
    boolean guardKinds =
        List.of("serviceaccounts").equals(rule.resources())
            || List.of("clusterroles", "clusterrolebindings").equals(rule.resources());
    if (!guardKinds) {
      return false;
    }
    assertThat(rule.role()).as("%s", rule).isEqualTo("ClusterRole/octomy-batch-controller");
    assertThat(HelmChartTest.texts(rule.raw().path("resourceNames")))
        .as("%s", rule)
        .containsExactly("octomy-batch-controller");
    assertThat(rule.verbs()).as("%s", rule).containsExactly("get", "list", "watch", "patch");
    return true;
  }

  /**
   * The other exception: the controller mints tokens for its own ServiceAccount alone (by name),
   * each for one agent's audience, to read a job's output there (kubectl octomy logs).
   */
  private static boolean isOwnAudienceToken(Rule rule) {
    if (!List.of("serviceaccounts/token").equals(rule.resources())) {
      return false;
    }
    assertThat(rule.role()).as("%s", rule).isEqualTo("ClusterRole/octomy-batch-controller");
    assertThat(HelmChartTest.texts(rule.raw().path("resourceNames")))
        .as("%s", rule)
        .containsExactly("octomy-batch-controller");
    assertThat(rule.verbs()).as("%s", rule).containsExactly("create");
    return true;
  }

  @ParameterizedTest
  @MethodSource("variants")
  void userObjectsAreNeverWrittenOnlyTheirStatusAndTheControllersFinalizer(
      Map<String, Object> values) {
    for (Rule rule : rules(Chart.template(values))) {
      if (forPeople(rule)) {
        continue; // people write their own BatchJobs: see the next test
      }
      if (rule.resources().contains("batchjobs")) {
        if (rule.role().endsWith("-controller") && rule.verbs().contains("patch")) {
          // Its own finalizer only (a merge patch of metadata.finalizers): nothing else on the
          // object, and no update, which could carry a whole spec.
          assertThat(rule.resources()).as("%s", rule).containsExactly("batchjobs");
          assertThat(rule.verbs()).as("%s", rule).containsExactly("patch");
          continue;
        }
        if (rule.role().endsWith("-controller") && rule.verbs().contains("delete")) {
          // A finished job past its TTL (spec.ttlSecondsAfterFinished or the policy's
          // finishedJobTTL), deleted on its uid: the spec is still never written.
          assertThat(rule.resources()).as("%s", rule).containsExactly("batchjobs");
          assertThat(rule.verbs()).as("%s", rule).containsExactly("delete");
          continue;
        }
        if (rule.role().endsWith("-controller") && rule.verbs().contains("create")) {
          // The items of an array job (spec.array), new objects it owns: no existing job's spec
          // or metadata is written by it.
          assertThat(rule.resources()).as("%s", rule).containsExactly("batchjobs");
          assertThat(rule.verbs()).as("%s", rule).containsExactly("create");
          continue;
        }
        assertThat(rule.verbs())
            .as("%s: BatchJob spec and metadata belong to people and GitOps", rule)
            .doesNotContainAnyElementsOf(WRITE_VERBS);
      }
      if (rule.resources().contains("batchnodes")) {
        // The agent creates its BatchNode once; afterwards the spec is people's.
        assertThat(rule.verbs()).as("%s", rule).doesNotContain("update", "patch", "delete");
      }
    }
  }

  /** The -user and -viewer roles are bound to people, not to the product's service accounts. */
  static boolean forPeople(Rule rule) {
    return rule.role().endsWith("-user") || rule.role().endsWith("-viewer");
  }

  @Test
  void peoplesRolesAggregateIntoEditAndViewAndNeverWriteStatusNodesOrPods() {
    Chart.Rendered r = Chart.defaults();
    JsonNode user = r.get("ClusterRole", "octomy-batch-user");
    JsonNode viewer = r.get("ClusterRole", "octomy-batch-viewer");
    assertThat(user.at("/metadata/labels/rbac.authorization.k8s.io~1aggregate-to-edit").asText())
        .isEqualTo("true");
    assertThat(viewer.at("/metadata/labels/rbac.authorization.k8s.io~1aggregate-to-view").asText())
        .isEqualTo("true");
    for (Rule rule : rules(r)) {
      if (!forPeople(rule)) {
        continue;
      }
      if (rule.apiGroups().equals(List.of(""))) {
        // Events, read as the built-in view role reads them: why a job was refused or failed
        assertThat(rule.role()).as("%s", rule).endsWith("-user");
        assertThat(rule.resources()).as("%s", rule).containsExactly("events");
        assertThat(rule.verbs()).as("%s", rule).containsExactly("get", "list", "watch");
        continue;
      }
      assertThat(rule.apiGroups())
          .as("%s", rule)
          .hasSize(1)
          .isSubsetOf("batch.octomy.io", "visibility.batch.octomy.io");
      if (rule.resources().equals(List.of("fitreviews"))) {
        // computed and answered, never stored
        assertThat(rule.verbs()).as("%s", rule).containsOnly("create");
      } else if (!rule.resources().equals(List.of("batchjobs"))) {
        assertThat(rule.verbs()).as("%s: read only", rule).isSubsetOf("get", "list", "watch");
      }
      if (rule.role().endsWith("-viewer")) {
        assertThat(rule.verbs()).as("%s", rule).isSubsetOf("get", "list", "watch");
      }
    }
  }

  @Test
  void theUserRoleReadsTheEventsOfTheNamespaceItIsBoundIn() {
    assertThat(rules(Chart.defaults()))
        .filteredOn(rule -> rule.role().equals("ClusterRole/octomy-batch-user"))
        .anySatisfy(
            rule -> {
              assertThat(rule.apiGroups()).containsExactly("");
              assertThat(rule.resources()).contains("events");
              assertThat(rule.verbs()).contains("get", "list", "watch");
            });
  }

  @Test
  void leasesOnlyInTheReleaseNamespace() {
    Chart.Rendered r = Chart.defaults();
    for (Rule rule : rules(r)) {
      if (rule.resources().contains("leases")) {
        assertThat(rule.role()).startsWith("Role/");
      }
    }
    JsonNode role = r.get("Role", "octomy-batch-controller-leader-election");
    assertThat(role.at("/metadata/namespace").asText()).isEqualTo(Chart.NAMESPACE);
    assertThat(role.at("/rules/1/resourceNames/0").asText())
        .as("the Lease the controller names")
        .isEqualTo("octomy-batch-controller");
    // JOSDK checks at start-up (SelfSubjectRulesReview) that the rules for leases, unnamed or
    // naming its Lease, give create, update and get together; otherwise it refuses to start.
    Set<String> verbs = new HashSet<>();
    for (Rule rule : rules(r)) {
      List<String> names = HelmChartTest.texts(rule.raw().path("resourceNames"));
      if (rule.apiGroups().contains("coordination.k8s.io")
          && rule.resources().contains("leases")
          && (names.isEmpty() || names.contains("octomy-batch-controller"))) {
        verbs.addAll(rule.verbs());
      }
    }
    assertThat(verbs).contains("create", "update", "get");
  }

  @Test
  void bindingsGiveEachRoleToItsOwnServiceAccount() {
    Chart.Rendered r = Chart.defaults();
    for (String kind : List.of("ClusterRoleBinding", "RoleBinding")) {
      for (JsonNode b : r.ofKind(kind)) {
        if (b.at("/metadata/name").asText().equals("octomy-batch-queue-reader")) {
          continue; // every user reads queues: see the next test
        }
        JsonNode subjects = b.path("subjects");
        assertThat(subjects).hasSize(1);
        assertThat(subjects.get(0).path("kind").asText()).isEqualTo("ServiceAccount");
        assertThat(subjects.get(0).path("namespace").asText()).isEqualTo(Chart.NAMESPACE);
        String role = b.at("/roleRef/name").asText();
        if (BUILT_IN_ROLES.contains(b.at("/roleRef/kind").asText() + "/" + role)) {
          assertThat(subjects.get(0).path("name").asText())
              .as("only the controller delegates authentication and authorization")
              .isEqualTo("octomy-batch-controller");
          continue;
        }
        assertThat(role).startsWith(subjects.get(0).path("name").asText());
        assertThat(r.find(b.at("/roleRef/kind").asText(), role))
            .as("%s refers to a rendered role", b.at("/metadata/name"))
            .isPresent();
      }
    }
  }

  /**
   * BatchQueues are cluster-scoped and shared by every team: every authenticated user reads them,
   * and no role of the chart writes one (cluster administrators do, with their own role); the
   * controller writes their status only.
   */
  @Test
  void everyUserReadsQueuesAndOnlyClusterAdministratorsWriteThem() {
    Chart.Rendered r = Chart.defaults();
    JsonNode binding = r.get("ClusterRoleBinding", "octomy-batch-queue-reader");
    assertThat(binding.at("/subjects/0/kind").asText()).isEqualTo("Group");
    assertThat(binding.at("/subjects/0/name").asText()).isEqualTo("system:authenticated");
    assertThat(binding.path("subjects")).hasSize(1);
    JsonNode role = r.get("ClusterRole", binding.at("/roleRef/name").asText());
    assertThat(role.path("rules")).hasSize(1);
    assertThat(HelmChartTest.texts(role.at("/rules/0/resources"))).containsExactly("batchqueues");
    assertThat(HelmChartTest.texts(role.at("/rules/0/verbs")))
        .containsExactly("get", "list", "watch");
    for (Rule rule : rules(r)) {
      if (rule.resources().contains("batchqueues")) {
        assertThat(rule.verbs()).as("%s", rule).doesNotContainAnyElementsOf(WRITE_VERBS);
      }
      if (rule.resources().contains("batchqueues/status")) {
        assertThat(rule.role()).as("%s", rule).isEqualTo("ClusterRole/octomy-batch-controller");
      }
    }
  }

  @Test
  void rulesMatchTheReviewedGoldenFile() throws IOException {
    ObjectNode actual = Chart.YAML.createObjectNode();
    for (Rule rule : rules(Chart.defaults())) {
      if (!actual.has(rule.role())) {
        actual.putArray(rule.role());
      }
      ((ArrayNode) actual.get(rule.role())).add(rule.raw());
    }
    Path out = Path.of("target/rbac-actual.yaml");
    Files.writeString(out, Chart.WRITER.writeValueAsString(actual));
    assertThat((JsonNode) actual)
        .as("RBAC changed. Review the widening, then copy %s over %s", out, GOLDEN)
        .isEqualTo(Chart.YAML.readTree(GOLDEN.toFile()));
  }
}
