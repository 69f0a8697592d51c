package io.octomy.batch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StandaloneLauncherTest {

  private static final long MIB = 1024 * 1024;

  @Test
  void aNewOrSmallStateGetsTheBaseHeapAndALargerOneMoreButNeverMoreThanTheJvmWouldTake() {
    long jvmDefault = 6 * 1024;
    assertThat(StandaloneLauncher.heapMib(0, jvmDefault)).isEqualTo(1400);
    // 100,000 jobs made a database of about 450 MiB: the base holds them
    assertThat(StandaloneLauncher.heapMib(450 * MIB, jvmDefault)).isEqualTo(1400);
    // a state larger than the base holds gets three times its database
    assertThat(StandaloneLauncher.heapMib(600 * MIB, jvmDefault)).isEqualTo(3 * 600);
    assertThat(StandaloneLauncher.heapMib(10_000 * MIB, jvmDefault)).isEqualTo(jvmDefault);
    // a machine whose JVM default is below the base still gets what 100,000 jobs need
    assertThat(StandaloneLauncher.heapMib(10_000 * MIB, 256)).isEqualTo(1400);
  }

  @Test
  void theStateIsItsDatabaseAndLogAndANewDirectoryHasNone(@TempDir Path dir) throws Exception {
    assertThat(StandaloneLauncher.stateBytes(dir.resolve("absent"))).isZero();
    Files.write(dir.resolve("state.db"), new byte[3000]);
    Files.write(dir.resolve("state.db-wal"), new byte[500]);
    Files.write(dir.resolve("kubeconfig"), new byte[100]);
    assertThat(StandaloneLauncher.stateBytes(dir)).isEqualTo(3500);
  }

  @Test
  void aHeapOptionFromTheCommandLineOrTheEnvironmentIsTheUsersChoice() {
    assertThat(StandaloneLauncher.heapChosen(origins(Map.of()))).isFalse();
    assertThat(
            StandaloneLauncher.heapChosen(
                origins(Map.of("MaxHeapSize", VMOption.Origin.VM_CREATION))))
        .isTrue();
    assertThat(
            StandaloneLauncher.heapChosen(
                origins(Map.of("MaxRAMPercentage", VMOption.Origin.ENVIRON_VAR))))
        .isTrue();
    assertThat(
            StandaloneLauncher.heapChosen(origins(Map.of("MaxRAM", VMOption.Origin.CONFIG_FILE))))
        .isTrue();
    // -Xms alone: a maximum of ours below it would keep the JVM from starting
    assertThat(
            StandaloneLauncher.heapChosen(
                origins(Map.of("InitialHeapSize", VMOption.Origin.VM_CREATION))))
        .isTrue();
  }

  @Test
  void aCollectorTheUserChoseIsKeptAndOneThisJvmLacksIsNotChosen() {
    assertThat(StandaloneLauncher.collectorChosen(origins(Map.of()))).isFalse();
    assertThat(
            StandaloneLauncher.collectorChosen(
                origins(Map.of("UseG1GC", VMOption.Origin.VM_CREATION))))
        .isTrue();
    assertThat(
            StandaloneLauncher.collectorChosen(
                origins(Map.of("UseSerialGC", VMOption.Origin.ENVIRON_VAR))))
        .isTrue();
    assertThat(StandaloneLauncher.collectorChosen(name -> null)).as("no such options").isFalse();
  }

  @Test
  void thisJvmsOwnOptionsAreReadAsItsCommandLineSaysTheyWereGiven() {
    // an independent reading: the options as given, on the command line or in the environment
    List<String> given = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
    for (String variable : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) {
      given.addAll(List.of(System.getenv().getOrDefault(variable, "").split("\\s+")));
    }
    boolean heapGiven =
        given.stream()
            .anyMatch(
                o ->
                    o.startsWith("-Xmx")
                        || o.startsWith("-Xms")
                        || o.matches(
                            "-XX:(MaxHeapSize|MaxRAM\\w*|InitialHeapSize|MinHeapSize)=.*"));
    assertThat(StandaloneLauncher.shouldLaunch()).isEqualTo(!heapGiven);
  }

  /** Every heap option ergonomic (the JVM's own sizing) except those named. */
  private static java.util.function.Function<String, VMOption.Origin> origins(
      Map<String, VMOption.Origin> set) {
    return name -> set.getOrDefault(name, VMOption.Origin.ERGONOMIC);
  }

  @Test
  void onlyAMissingProcEntryMeansTheLauncherIsGone(@TempDir Path dir) throws Exception {
    assertThat(StandaloneLauncher.launcherRuns(Path.of("/proc/self"))).isTrue();
    assertThat(StandaloneLauncher.launcherRuns(dir.resolve("no-such-process"))).isFalse();
    // A stat that fails for another reason (here a loop of links; under pressure, out of kernel
    // memory) is no proof that the launcher ended.
    Path loop = Files.createSymbolicLink(dir.resolve("loop"), dir.resolve("loop"));
    assertThat(StandaloneLauncher.launcherRuns(loop)).isTrue();
  }
}
