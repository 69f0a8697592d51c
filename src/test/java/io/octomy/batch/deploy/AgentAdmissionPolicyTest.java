package io.octomy.batch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The optional ValidatingAdmissionPolicy keeps an agent to its own BatchNode. No API server runs
 * here, so its CEL is evaluated with standard CEL on requests shaped like the API server's.
 */
class AgentAdmissionPolicyTest {

  private static final String AGENT = "system:serviceaccount:octomy-system:octomy-batch-agent";
  private static final String NODE_CLAIM = "authentication.kubernetes.io/node-name";

  private static final CelCompiler COMPILER =
      CelCompilerFactory.standardCelCompilerBuilder()
          .addVar("request", SimpleType.DYN)
          .addVar("object", SimpleType.DYN)
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  private final JsonNode policy =
      Chart.template(Map.of("agent.restrictToOwnNode", "true"))
          .get("ValidatingAdmissionPolicy", "octomy-batch-agent-own-node");

  @Test
  void matchesWritesOfBatchNodesAndTheirStatus() {
    JsonNode rule = policy.at("/spec/matchConstraints/resourceRules/0");
    assertThat(HelmChartTest.texts(rule.path("resources")))
        .containsExactlyInAnyOrder("batchnodes", "batchnodes/status");
    assertThat(HelmChartTest.texts(rule.path("operations")))
        .containsExactlyInAnyOrder("CREATE", "UPDATE");
    assertThat(policy.at("/spec/failurePolicy").asText()).isEqualTo("Fail");
  }

  @Test
  void anAgentMayWriteItsOwnNodeOnly() throws Exception {
    assertThat(applies(AGENT)).isTrue();
    assertThat(allowed(AGENT, Map.of(NODE_CLAIM, List.of("ws-7")), "ws-7")).isTrue();
    assertThat(allowed(AGENT, Map.of(NODE_CLAIM, List.of("ws-7")), "ws-3")).isFalse();
    // A token without the claim (older API servers, tokens not bound to a pod) is refused.
    assertThat(allowed(AGENT, Map.of(), "ws-7")).isFalse();
  }

  @Test
  void otherUsersAreNotMatched() throws Exception {
    assertThat(applies("system:serviceaccount:other:octomy-batch-agent")).isFalse();
    assertThat(applies("alice@example.com")).isFalse();
  }

  private boolean applies(String user) throws Exception {
    return eval(policy.at("/spec/matchConditions/0/expression").asText(), user, Map.of(), "any");
  }

  private boolean allowed(String user, Map<String, List<String>> extra, String node)
      throws Exception {
    return eval(policy.at("/spec/validations/0/expression").asText(), user, extra, node);
  }

  private static boolean eval(
      String expression, String user, Map<String, List<String>> extra, String node)
      throws Exception {
    CelRuntime.Program program = RUNTIME.createProgram(COMPILER.compile(expression).getAst());
    Object result =
        program.eval(
            Map.of(
                "request", Map.of("userInfo", Map.of("username", user, "extra", extra)),
                "object", Map.of("metadata", Map.of("name", node))));
    return Boolean.TRUE.equals(result);
  }
}
