package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CgroupBoundsTest {

  @TempDir Path root;

  private void write(String rel, String content) throws Exception {
    Path p = root.resolve(rel);
    Files.createDirectories(p.getParent());
    Files.writeString(p, content);
  }

  @Test
  void containerRootLimitsAreRead() throws Exception {
    write("cpu.max", "250000 100000\n");
    write("memory.max", "2147483648\n");
    CgroupBounds b = CgroupBounds.read(root, "/");
    assertThat(b.cpuMilli()).isEqualTo(OptionalLong.of(2500));
    assertThat(b.memoryBytes()).isEqualTo(OptionalLong.of(2147483648L));
  }

  @Test
  void maxMeansUnbounded() throws Exception {
    write("cpu.max", "max 100000\n");
    write("memory.max", "max\n");
    assertThat(CgroupBounds.read(root, "/")).isEqualTo(CgroupBounds.NONE);
  }

  @Test
  void missingFilesMeanUnbounded() {
    assertThat(CgroupBounds.read(root.resolve("nowhere"), "/a/b")).isEqualTo(CgroupBounds.NONE);
  }

  @Test
  void tightestBoundAlongThePathWins() throws Exception {
    write("system.slice/cpu.max", "400000 100000");
    write("system.slice/memory.max", "max");
    write("system.slice/agent.service/cpu.max", "max 100000");
    write("system.slice/agent.service/memory.max", "1073741824");
    write("other.slice/cpu.max", "10000 100000"); // not on our path
    CgroupBounds b = CgroupBounds.read(root, "/system.slice/agent.service");
    assertThat(b.cpuMilli()).isEqualTo(OptionalLong.of(4000));
    assertThat(b.memoryBytes()).isEqualTo(OptionalLong.of(1073741824L));
  }

  @Test
  void fractionalQuotaRoundsDownAndGarbageIsIgnored() throws Exception {
    write("cpu.max", "50000 30000"); // 1.666.. cores
    write("memory.max", "lots");
    CgroupBounds b = CgroupBounds.read(root, "/");
    assertThat(b.cpuMilli()).isEqualTo(OptionalLong.of(1666));
    assertThat(b.memoryBytes()).isEmpty();
  }

  @Test
  void ownPathComesFromTheUnifiedLine() throws Exception {
    write("proc-cgroup", "12:memory:/old\n0::/system.slice/agent.service\n");
    assertThat(CgroupBounds.ownCgroupPath(root.resolve("proc-cgroup")))
        .isEqualTo("/system.slice/agent.service");
    write("v1-only", "4:memory:/x\n");
    assertThat(CgroupBounds.ownCgroupPath(root.resolve("v1-only"))).isEqualTo("/");
    assertThat(CgroupBounds.ownCgroupPath(root.resolve("absent"))).isEqualTo("/");
  }

  @Test
  void pathCannotEscapeTheRoot() throws Exception {
    write("cpu.max", "100000 100000");
    // ".." segments are dropped, so only root/cpu.max counts.
    assertThat(CgroupBounds.read(root, "/../..").cpuMilli()).isEqualTo(OptionalLong.of(1000));
  }

  @Test
  void boundsClampOnlyWhenPresent() {
    CgroupBounds b = new CgroupBounds(OptionalLong.of(1500), OptionalLong.empty());
    assertThat(b.boundCpuMilli(4000)).isEqualTo(1500);
    assertThat(b.boundCpuMilli(1000)).isEqualTo(1000);
    assertThat(b.boundMemoryBytes(123)).isEqualTo(123);
  }
}
