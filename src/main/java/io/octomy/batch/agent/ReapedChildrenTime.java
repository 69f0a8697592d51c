package io.octomy.batch.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Processor time of the children a process has waited for, which the kernel adds to the parent when
 * it reaps them (Linux: {@code cutime + cstime} in {@code /proc/PID/stat}). A job that is a shell
 * script running many short commands spends most of its time in children that live between two
 * readings; without this their time would never be seen.
 */
interface ReapedChildrenTime {

  /** Cumulative milliseconds; 0 when the process is gone or the figure is not available. */
  long millis(int pid);

  /** Whether figures are available at all; a meter without them must not expect them. */
  boolean available();

  /** No figures (not Linux, or a test that scripts only the processes' own times). */
  ReapedChildrenTime NONE =
      new ReapedChildrenTime() {
        @Override
        public long millis(int pid) {
          return 0;
        }

        @Override
        public boolean available() {
          return false;
        }
      };

  /**
   * Reads {@code /proc/PID/stat} under {@code proc}, whose clock ticks last {@code 1000 / hz} ms.
   * NONE when {@code proc} is not a directory.
   */
  static ReapedChildrenTime procfs(Path proc, long hz) {
    if (!Files.isDirectory(proc) || hz <= 0) {
      return NONE;
    }
    return new ReapedChildrenTime() {
      @Override
      public long millis(int pid) {
        try {
          return parse(Files.readString(proc.resolve(Integer.toString(pid)).resolve("stat")), hz);
        } catch (IOException | RuntimeException e) {
          return 0; // gone between listing and reading
        }
      }

      @Override
      public boolean available() {
        return true;
      }
    };
  }

  /**
   * cutime + cstime (fields 16 and 17) in ms. The command name (field 2) may hold spaces and
   * parentheses, so fields are counted from the last ')'.
   */
  static long parse(String stat, long hz) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    // f[0] is field 3 (state), so field N is f[N - 3].
    long ticks = Long.parseLong(f[13]) + Long.parseLong(f[14]);
    return ticks * 1000 / hz;
  }
}
