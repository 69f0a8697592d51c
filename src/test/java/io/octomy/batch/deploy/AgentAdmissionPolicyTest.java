package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ValidatingAdmissionPolicy, on by default, keeps an agent to its own BatchNode and the
 * BatchJobs on its node. No API server runs here, so its CEL is evaluated with standard CEL on
 * requests shaped like the API server's (variables evaluated first, as the server does).
 */
class AgentAdmissionPolicyTest {

  private static final String AGENT = "system:serviceaccount:octomy-system:octomy-batch-agent";
  private static final String NODE_CLAIM = "authentication.kubernetes.io/node-name";

  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .addVar("request", SimpleType.DYN)
          .addVar("object", SimpleType.DYN)
          .addVar("oldObject", SimpleType.DYN)
          .addVar("variables", SimpleType.DYN)
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          // Kubernetes' CEL has the strings extension (substring).
          .addLibraries(CelExtensions.strings())
          .build();
  private static final CelRuntime RUNTIME =
      CelRuntimeFactory.standardCelRuntimeBuilder().addLibraries(CelExtensions.strings()).build();

  private static final Map<String, List<String>> ON_WS7 = Map.of(NODE_CLAIM, List.of("ws-7"));

  private final JsonNode policy =
      Chart.defaults().get("ValidatingAdmissionPolicy", "octomy-batch-agent-own-node");

  @Test
  void isOnByDefaultAndTheSwitchLeavesItOut() {
    assertThat(
            Chart.defaults()
                .get("ValidatingAdmissionPolicyBinding", "octomy-batch-agent-own-node")
                .at("/spec/validationActions/0")
                .asText())
        .isEqualTo("Deny");
    Chart.Rendered off = Chart.template(Map.of("agent.restrictToOwnNode", "false"));
    assertThat(off.find("ValidatingAdmissionPolicy", "octomy-batch-agent-own-node")).isEmpty();
    assertThat(off.find("ValidatingAdmissionPolicyBinding", "octomy-batch-agent-own-node"))
        .isEmpty();
  }

  @Test
  void matchesEveryWriteOfBatchNodesAndBatchJobs() {
    JsonNode rule = policy.at("/spec/matchConstraints/resourceRules/0");
    assertThat(HelmChartTest.texts(rule.path("resources")))
        .containsExactlyInAnyOrder(
            "batchnodes", "batchnodes/status", "batchjobs", "batchjobs/status");
    assertThat(HelmChartTest.texts(rule.path("operations")))
        .containsExactlyInAnyOrder("CREATE", "UPDATE", "DELETE");
    assertThat(policy.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
  }

  @Test
  void anAgentMayWriteItsOwnNodeOnly() throws Exception {
    assertThat(applies(AGENT)).isTrue();
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchnodes", node("ws-7"), node("ws-7"))).isNull();
    assertThat(refusal(AGENT, ON_WS7, "CREATE", "batchnodes", null, node("ws-7"))).isNull();
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchnodes", node("ws-3"), node("ws-3")))
        .isEqualTo("an agent may write only the BatchNode of its own node, not ws-3");
    assertThat(refusal(AGENT, ON_WS7, "DELETE", "batchnodes", node("ws-3"), null))
        .isEqualTo("an agent may write only the BatchNode of its own node, not ws-3");
    // A token without the claim (older API servers, tokens not bound to a pod) is refused.
    assertThat(refusal(AGENT, Map.of(), "UPDATE", "batchnodes", node("ws-7"), node("ws-7")))
        .isNotNull();
  }

  @Test
  void aWorkstationsAccountMayWriteOnlyTheNodeItsNameEndsWith() throws Exception {
    String ws7 = AGENT + "-node-ws-7";
    assertThat(applies(ws7)).isTrue();
    assertThat(refusal(ws7, Map.of(), "UPDATE", "batchnodes", node("ws-7"), node("ws-7"))).isNull();
    assertThat(refusal(ws7, Map.of(), "CREATE", "batchnodes", null, node("ws-7"))).isNull();
    assertThat(refusal(ws7, Map.of(), "UPDATE", "batchnodes", node("ws-3"), node("ws-3")))
        .isEqualTo("an agent may write only the BatchNode of its own node, not ws-3");
    assertThat(refusal(ws7, Map.of(), "CREATE", "batchnodes", null, node("ws-7.lab")))
        .isEqualTo("an agent may write only the BatchNode of its own node, not ws-7.lab");
    // The account's name decides, not a node claim its token might carry.
    assertThat(
            refusal(
                ws7,
                Map.of(NODE_CLAIM, List.of("ws-3")),
                "UPDATE",
                "batchnodes",
                node("ws-3"),
                node("ws-3")))
        .isEqualTo("an agent may write only the BatchNode of its own node, not ws-3");
    assertThat(refusal(ws7, Map.of(), "UPDATE", "batchjobs", job("ws-3"), job("ws-3")))
        .isEqualTo("an agent may write only the BatchJobs on its own node, not team-a/solve-1");
    assertThat(refusal(ws7, Map.of(), "UPDATE", "batchjobs", job("ws-7"), job("ws-7"))).isNull();
    assertThat(applies("system:serviceaccount:other:octomy-batch-agent-node-ws-7")).isFalse();
  }

  @Test
  void anAgentMayWriteOnlyTheJobsOnItsNode() throws Exception {
    String other = "an agent may write only the BatchJobs on its own node, not team-a/solve-1";
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchjobs", job("ws-7"), job("ws-7"))).isNull();
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchjobs", job("ws-3"), job("ws-3")))
        .isEqualTo(other);
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchjobs", job("ws-3"), job("ws-7")))
        .as("taking a job over from another node")
        .isEqualTo(other);
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchjobs", job("ws-7"), job("ws-3")))
        .as("moving its job elsewhere")
        .isEqualTo(other);
    assertThat(refusal(AGENT, ON_WS7, "UPDATE", "batchjobs", job(null), job(null)))
        .as("a job not admitted anywhere")
        .isEqualTo(other);
    assertThat(refusal(AGENT, ON_WS7, "DELETE", "batchjobs", job("ws-3"), null)).isEqualTo(other);
    assertThat(refusal(AGENT, ON_WS7, "CREATE", "batchjobs", null, job("ws-7"))).isEqualTo(other);
  }

  @Test
  void otherUsersAreNotMatched() throws Exception {
    assertThat(applies("system:serviceaccount:other:octomy-batch-agent")).isFalse();
    assertThat(applies("system:serviceaccount:octomy-system:octomy-batch-controller")).isFalse();
    assertThat(applies("alice@example.com")).isFalse();
  }

  @Test
  void theControllerMayNotMakeAPodThatRunsAsTheAgent() throws Exception {
    JsonNode kept =
        Chart.defaults().get("ValidatingAdmissionPolicy", "octomy-batch-agent-token-kept");
    String match = kept.at("/spec/matchConditions/0/expression").asText();
    String valid = kept.at("/spec/validations/0/expression").asText();
    String controller = "system:serviceaccount:octomy-system:octomy-batch-controller";
    assertThat(eval(match, podRequest(controller, "octomy-system", "default"))).isEqualTo(true);
    assertThat(eval(match, podRequest(controller, "team-a", "default"))).isEqualTo(false);
    assertThat(
            eval(
                match,
                podRequest(
                    "system:serviceaccount:kube-system:daemon-set-controller",
                    "octomy-system",
                    "default")))
        .isEqualTo(false);
    assertThat(eval(valid, podRequest(controller, "octomy-system", "octomy-batch-agent")))
        .isEqualTo(false);
    assertThat(eval(valid, podRequest(controller, "octomy-system", "default"))).isEqualTo(true);
    assertThat(eval(valid, podRequest(controller, "octomy-system", "octomy-batch-agent-node-ws-7")))
        .as("a workstation agent's account")
        .isEqualTo(false);
    assertThat(
            eval(
                valid,
                Map.of(
                    "object",
                    Map.of("spec", Map.of("serviceAccount", "octomy-batch-agent-node-ws-7")))))
        .isEqualTo(false);
    assertThat(
            eval(
                valid,
                Map.of("object", Map.of("spec", Map.of("serviceAccount", "octomy-batch-agent")))))
        .as("the older field name")
        .isEqualTo(false);
  }

  private static Map<String, Object> podRequest(String user, String namespace, String account) {
    return Map.of(
        "request",
        Map.of("userInfo", Map.of("username", user), "namespace", namespace),
        "object",
        Map.of("spec", Map.of("serviceAccountName", account, "serviceAccount", account)));
  }

  private boolean applies(String user) throws Exception {
    Map<String, Object> vars =
        Map.of("request", Map.of("userInfo", Map.of("username", user, "extra", Map.of())));
    return Boolean.TRUE.equals(
        eval(policy.at("/spec/matchConditions/0/expression").asText(), vars));
  }

  /** The policy's message for this request, or null when every validation passes. */
  private String refusal(
      String user,
      Map<String, List<String>> extra,
      String operation,
      String resource,
      Map<String, Object> oldObject,
      Map<String, Object> object)
      throws Exception {
    Map<String, Object> vars = new HashMap<>();
    vars.put(
        "request",
        Map.of(
            "userInfo", Map.of("username", user, "extra", extra),
            "operation", operation,
            "resource", Map.of("group", "batch.octomy.io", "resource", resource)));
    vars.put("oldObject", oldObject);
    vars.put("object", object);
    Map<String, Object> variables = new HashMap<>();
    for (JsonNode v : policy.at("/spec/variables")) {
      variables.put(
          v.path("name").asText(),
          eval(v.path("expression").asText(), withVariables(vars, variables)));
    }
    Map<String, Object> all = withVariables(vars, variables);
    for (JsonNode v : policy.at("/spec/validations")) {
      if (!Boolean.TRUE.equals(eval(v.path("expression").asText(), all))) {
        return (String) eval(v.path("messageExpression").asText(), all);
      }
    }
    return null;
  }

  private static Map<String, Object> withVariables(
      Map<String, Object> vars, Map<String, Object> variables) {
    Map<String, Object> out = new HashMap<>(vars);
    out.put("variables", new HashMap<>(variables));
    return out;
  }

  private static Map<String, Object> node(String name) {
    return Map.of("metadata", Map.of("name", name));
  }

  /** A BatchJob team-a/solve-1, admitted to {@code node} (null: not admitted). */
  private static Map<String, Object> job(String node) {
    Map<String, Object> job = new HashMap<>();
    job.put("metadata", Map.of("name", "solve-1", "namespace", "team-a"));
    job.put("status", node == null ? Map.of("phase", "Queued") : Map.of("node", node));
    return job;
  }

  private static Object eval(String expression, Map<String, Object> vars) throws Exception {
    CelRuntime.Program program = RUNTIME.createProgram(COMPILER.compile(expression).getAst());
    return program.eval(vars);
  }
}
