package io.octomy.batch.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyLoaderTest {

  private static final String CPU = "octomy.io/cpu-milli";
  private static final String MEM = "octomy.io/memory-bytes";
  private static final String GPU = "octomy.io/gpu";

  @Test
  void emptyFileGivesTheDefaults() {
    Policy p = PolicyLoader.parse("", "p.yaml");
    assertThat(p).isEqualTo(Policy.defaults());
    assertThat(p.modes().percent(NodeMode.Interactive, CPU)).isEqualTo(50);
    assertThat(p.modes().percent(NodeMode.Interactive, MEM)).isEqualTo(25);
    assertThat(p.modes().percent(NodeMode.Interactive, GPU)).isZero();
    assertThat(p.modes().percent(NodeMode.Interactive, "example.com/su2")).isEqualTo(50);
    assertThat(p.modes().percent(NodeMode.Background, GPU)).isEqualTo(100);
    assertThat(p.modes().percent(NodeMode.Background, "example.com/su2")).isEqualTo(75);
    assertThat(p.modes().percent(NodeMode.Drone, MEM)).isEqualTo(100);
    assertThat(p.modes().percent(NodeMode.Off, CPU)).isZero();
    assertThat(p.priority())
        .isEqualTo(new PriorityPolicy(200, 100, 0, 10, 300, Duration.ofHours(1)));
    assertThat(p.maxRunning("simulator")).isEqualTo(1);
    assertThat(p.budgets()).isEmpty();
    assertThat(p.nodeHeartbeatTimeout()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void fairShareKeysAreReadAndAZeroHalfLifeIsRefused() {
    Policy p =
        PolicyLoader.parse(
            "priority: {fairShareWeight: 400}\nfairShare: {usageHalfLife: 30m}\n", "p.yaml");
    assertThat(p.priority().fairShareWeight()).isEqualTo(400);
    assertThat(p.usageHalfLife()).isEqualTo(Duration.ofMinutes(30));
    assertThat(Policy.defaults().usageHalfLife()).isEqualTo(Duration.ofHours(1));
    assertThat(Policy.defaults().priority().fairShareWeight()).isEqualTo(1000);
    assertThatThrownBy(() -> PolicyLoader.parse("fairShare: {usageHalfLife: 0s}\n", "p.yaml"))
        .hasMessageContaining("fairShare.usageHalfLife")
        .hasMessageContaining("positive duration");
  }

  @Test
  void everyKeyOverridesOnlyWhatItNames() {
    Policy p =
        PolicyLoader.parse(
            """
        modes:
          Interactive: {octomy.io/gpu: 10, example.com/su2-processes: 20}
        priority: {agingPerMinute: 5, starvationAfter: 1h30m}
        groups: {simulator: {maxRunning: 3}, optimizer: {}}
        budgets: {studio: {octomy.io/cpu-milli: 8000}}
        nodeHeartbeatTimeout: 90s
        finishedJobTTL: 24h
        retryBackoff: 1s
        """,
            "p.yaml");
    assertThat(p.modes().percent(NodeMode.Interactive, GPU)).isEqualTo(10);
    assertThat(p.modes().percent(NodeMode.Interactive, "example.com/su2-processes")).isEqualTo(20);
    assertThat(p.modes().percent(NodeMode.Interactive, CPU))
        .as("names not written keep the default")
        .isEqualTo(50);
    assertThat(p.modes().percent(NodeMode.Background, CPU))
        .as("rows not written keep the default")
        .isEqualTo(75);
    assertThat(p.priority().agingPerMinute()).isEqualTo(5);
    assertThat(p.priority().guaranteed()).isEqualTo(200);
    assertThat(p.priority().starvationAfter()).isEqualTo(Duration.ofMinutes(90));
    assertThat(p.maxRunning("simulator")).isEqualTo(3);
    assertThat(p.maxRunning("optimizer")).isEqualTo(1);
    assertThat(p.budgets()).isEqualTo(Map.of("studio", Map.of(CPU, 8000L)));
    assertThat(p.nodeHeartbeatTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(p.finishedJobTTL()).isEqualTo(Duration.ofHours(24));
    assertThat(Policy.defaults().finishedJobTTL()).as("unset keeps finished jobs").isNull();
    assertThat(p.retryBackoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(p.retryDelay(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(p.retryDelay(3)).as("doubled per failed run").isEqualTo(Duration.ofSeconds(4));
    assertThat(Policy.defaults().retryDelay(1)).isEqualTo(Duration.ofSeconds(10));
    assertThat(Policy.defaults().retryDelay(20)).as("capped").isEqualTo(Duration.ofMinutes(6));
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        Arguments.of(
            "unknown top-level key",
            "priority: {}\nbudget: {studio: {}}\n",
            "policy p.yaml line 2",
            "'budget' is not a policy key; the keys here are budgets, fairShare, finishedJobTTL, groups, modes, nodeHeartbeatTimeout, priority, retryBackoff"),
        Arguments.of(
            "unknown nested key",
            "priority:\n  aging: 5\n",
            "line 2, field priority.aging",
            "'aging' is not a policy key"),
        Arguments.of(
            "percent above 100",
            "modes:\n  Drone: {\"*\": 150}\n",
            "line 2, field modes.Drone",
            "150 is not a percentage; write a whole number from 0 to 100"),
        Arguments.of(
            "unknown mode",
            "modes:\n  Idle: {\"*\": 10}\n",
            "line 2",
            "'Idle' is not a mode; write one of Interactive, Background, Drone, Off"),
        Arguments.of(
            "a row for Off, which offers nothing whatever it says",
            "modes:\n  Off: {\"*\": 50}\n",
            "policy p.yaml, field modes.Off",
            "remove the Off row"),
        Arguments.of(
            "resource without domain in a row",
            "modes:\n  Drone: {cfd-cores: 10}\n",
            "line 2",
            "resource name 'cfd-cores' has no domain; write it as example.com/cfd-cores"),
        Arguments.of(
            "fraction in a budget",
            "budgets:\n  studio: {octomy.io/cpu-milli: 0.5}\n",
            "line 2, field budgets.studio",
            "0.5 is a fraction; write a whole number"),
        Arguments.of(
            "negative aging",
            "priority:\n  agingPerMinute: -1\n",
            "line 2, field priority.agingPerMinute",
            "-1 is negative"),
        Arguments.of(
            "bad duration",
            "nodeHeartbeatTimeout: 1 minute\n",
            "line 1, field nodeHeartbeatTimeout",
            "'1 minute' is not a duration; write one like 90s, 5m or 1h30m"),
        Arguments.of(
            "zero group cap",
            "groups:\n  simulator: {maxRunning: 0}\n",
            "line 2, field groups.simulator.maxRunning",
            "maxRunning is 0; write 1 or more"),
        Arguments.of(
            "string where a number goes",
            "priority:\n  guaranteed: high\n",
            "line 2, field priority.guaranteed",
            "'high' is not a number; write a whole number"),
        Arguments.of(
            "a word for an aging rate",
            "priority: {agingPerMinute: ten}\n",
            "line 1, field priority.agingPerMinute",
            "'ten' is not a number; write a whole number"),
        Arguments.of(
            "a bare number for a duration",
            "nodeHeartbeatTimeout: 60\n",
            "line 1, field nodeHeartbeatTimeout",
            "'60' is not a duration; write one like 90s, 5m or 1h30m"),
        Arguments.of(
            "a word for a group cap",
            "groups:\n  simulator: {maxRunning: two}\n",
            "line 2, field groups.simulator.maxRunning",
            "'two' is not a number; write a whole number"),
        Arguments.of(
            "a resource name without a domain as a budget's key",
            "budgets: {studio: {cpu: 100}}\n",
            "line 1, field budgets.studio: resource name 'cpu' has no domain; write it as"
                + " example.com/cpu",
            ""),
        Arguments.of(
            "a group name that is no DNS label",
            "groups: {Sim_1: {maxRunning: 2}}\n",
            "field groups: 'Sim_1' is not a valid name",
            ""),
        Arguments.of(
            "a list where names and their caps go",
            "groups: [a, b]\n",
            "line 1, field groups: a list is not a mapping; write keys and values under it",
            ""),
        Arguments.of(
            "a number where keys go",
            "priority: 5\n",
            "line 1, field priority",
            "'5' is not a mapping; write keys and values under it (key: value)"),
        Arguments.of("not YAML", "modes: [\n", "policy p.yaml", ""),
        // Numbers that would let a sum or product overflow are refused where they are written.
        Arguments.of(
            "a class base near 2^63",
            "priority:\n  guaranteed: 9223372036854775807\n",
            "line 2, field priority.guaranteed",
            "9223372036854775807 is too large; a priority number is a whole number from 0 to"
                + " 1000000000"),
        Arguments.of(
            "an aging ceiling beyond 64 bits",
            "priority:\n  agingCeiling: 99999999999999999999\n",
            "line 2, field priority.agingCeiling",
            "is too large"),
        Arguments.of(
            "a budget above 2^53 - 1",
            "budgets:\n  studio: {octomy.io/cpu-milli: 9007199254740992}\n",
            "line 2, field budgets.studio",
            "9007199254740992 is too large; a quantity is a whole number from 0 to"
                + " 9007199254740991"),
        Arguments.of(
            "a heartbeat timeout of zero",
            "nodeHeartbeatTimeout: 0s\n",
            "line 1, field nodeHeartbeatTimeout",
            "'0s' is not a positive duration"),
        Arguments.of(
            "a finished-job TTL written as a number of seconds",
            "finishedJobTTL: 3600\n",
            "line 1, field finishedJobTTL",
            "3600"),
        Arguments.of(
            "a negative finished-job TTL",
            "finishedJobTTL: -1h\n",
            "line 1, field finishedJobTTL",
            "-1h"),
        Arguments.of(
            "a duration beyond 64 bits of nanoseconds",
            "priority:\n  starvationAfter: 9999999h\n",
            "line 2, field priority.starvationAfter",
            "is longer than the longest duration"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void badPolicyNamesTheLineAndField(String name, String yaml, String where, String what) {
    assertThatThrownBy(() -> PolicyLoader.parse(yaml, "p.yaml"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining(where)
        .hasMessageContaining(what);
  }

  @Test
  void loadsFromAFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("policy.yaml");
    Files.writeString(f, "groups: {simulator: {maxRunning: 2}}\n");
    assertThat(PolicyLoader.load(f).maxRunning("simulator")).isEqualTo(2);
    assertThatThrownBy(() -> PolicyLoader.load(dir.resolve("missing.yaml")))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("cannot read policy file");
  }

  @Test
  void goDurations() {
    assertThat(GoDuration.parse("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(GoDuration.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(GoDuration.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
    assertThat(GoDuration.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(GoDuration.parse("0")).isEqualTo(Duration.ZERO);
    assertThat(GoDuration.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
    assertThatThrownBy(() -> GoDuration.parse("5")).hasMessageContaining("is not a duration");
  }

  @Test
  void policiesBuiltInCodeAreBoundedToo() {
    assertThatThrownBy(
            () -> new PriorityPolicy(Long.MAX_VALUE, 100, 0, 10, 300, Duration.ofHours(1)))
        .hasMessageContaining(
            "priority.guaranteed is 9223372036854775807; write a whole number"
                + " from 0 to 1000000000");
  }

  @Test
  void offersNeverExceedCapacity() {
    ModeTable t = ModeTable.defaults();
    assertThat(t.offer(NodeMode.Interactive, CPU, 16000)).isEqualTo(8000);
    assertThat(t.offer(NodeMode.Interactive, MEM, 1001)).isEqualTo(250);
    assertThat(t.offer(NodeMode.Drone, GPU, 2)).isEqualTo(2);
    assertThat(t.offer(NodeMode.Off, GPU, 2)).isZero();
  }
}
