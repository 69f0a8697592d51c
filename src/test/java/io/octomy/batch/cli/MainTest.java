package io.octomy.batch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MainTest {

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void helpListsTheThreeSubcommands() {
    Run r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("standalone", "controller", "agent");
  }

  @Test
  void subcommandHelpShowsTheContractFlags() {
    assertThat(run("standalone", "--help").out())
        .contains("--state-dir", "--port", "--node", "--mode", "--capacity", "--policy");
    assertThat(run("agent", "--help").out())
        .contains("--node", "--executor", "--mode", "--capacity", "--kubeconfig");
    assertThat(run("controller", "--help").out()).contains("--policy");
  }

  @Test
  void badCapacitySaysWhatToWrite() {
    Run r = run("agent", "--node", "n1", "--capacity", "cfd-cores=4");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("resource name 'cfd-cores' has no domain; write it as example.com/cfd-cores=4");
    assertThat(run("agent", "--node", "n1", "--capacity", "example.com/x=0.5").err())
        .contains("quantity '0.5' of example.com/x is not a whole number");
  }

  @Test
  void badModeListsTheModes() {
    Run r = run("agent", "--node", "n1", "--mode", "Idle");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Interactive", "Background", "Drone", "Off");
  }

  @Test
  void aNodeNameTheServerWouldRefuseIsRefusedHereWithOneToWrite() {
    Run r = run("agent", "--node", "WS_7");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("--node WS_7 is not a node name")
        .contains("(for example ws-7)")
        .doesNotContain("\tat ");
  }

  @Test
  void aPortOutOfRangeIsRefusedBeforeAnythingStarts() {
    Run standalone = run("standalone", "--port", "99999");
    assertThat(standalone.code()).isEqualTo(2);
    assertThat(standalone.err())
        .contains(
            "--port 99999 is not a port; write a number from 1 to 65535, or 0 for any free one");
    Run controller = run("controller", "--metrics-port", "-2");
    assertThat(controller.code()).isEqualTo(2);
    assertThat(controller.err()).contains("--metrics-port -2 is not a port", "(-1 turns it off)");
  }

  @Test
  void aPolicyThatCannotBeUsedIsOneSentenceNotAStackTrace(@TempDir Path dir) throws Exception {
    Path policy = dir.resolve("policy.yaml");
    Files.writeString(policy, "nodeHeartbeatTimeout: 60\n");
    Run r = run("controller", "--policy", policy.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "controller: policy "
                + policy
                + " line 1, field nodeHeartbeatTimeout: '60' is not a duration; write one like"
                + " 90s, 5m or 1h30m");
  }

  @Test
  void aMissingKubeconfigIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("kubeconfig");
    Run r = run("agent", "--node", "n1", "--kubeconfig", missing.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("--kubeconfig " + missing + ": no such file")
        .doesNotContain("\tat ");
  }

  @Test
  void aMissingKubeconfigOfTheControllerIsNamed(@TempDir Path dir) {
    Path missing = dir.resolve("kubeconfig");
    Run r = run("controller", "--kubeconfig", missing.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("--kubeconfig " + missing + ": no such file")
        .doesNotContain("\tat ");
  }

  @Test
  void theLeaseIsNeverInDefaultByAccident() {
    assertThat(ControllerCommand.leaseNamespace(null, null)).isEqualTo("octomy-system");
    assertThat(ControllerCommand.leaseNamespace(null, "")).isEqualTo("octomy-system");
    assertThat(ControllerCommand.leaseNamespace(null, "team-ops")).isEqualTo("team-ops");
    assertThat(ControllerCommand.leaseNamespace("default", "team-ops")).isEqualTo("default");
  }

  @Test
  void capacityConverterParsesNameAndQuantity() {
    assertThat(new CapacityConverter().convert("octomy.io/cpu-milli=8000"))
        .isEqualTo(Map.entry("octomy.io/cpu-milli", 8000L));
  }
}
