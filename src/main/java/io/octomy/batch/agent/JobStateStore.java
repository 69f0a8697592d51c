package io.octomy.batch.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The per-job files under {@code STATE/jobs/<namespace>/<name>/<uid>/}: {@code state.json}, {@code
 * output.log}, {@code exitcode} (written by the wrapper) and the default {@code work} directory.
 */
final class JobStateStore {

  static final String STATE_FILE = "state.json";

  private final Path jobsDir;
  private final ObjectMapper json =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * @param stateDir the agent's state directory; a relative one is taken from this process's
   *     working directory now, since every path handed to a job (its {@code exitcode} file above
   *     all, which its wrapper writes from inside the job's own working directory) must be absolute
   */
  JobStateStore(Path stateDir) {
    this.jobsDir = jobsDir(stateDir);
  }

  /** The {@code jobs} directory of an agent's state directory, as an absolute path. */
  static Path jobsDir(Path stateDir) {
    return stateDir.toAbsolutePath().normalize().resolve("jobs");
  }

  Path dir(RunKey key) {
    return jobsDir.resolve(key.namespace()).resolve(key.name()).resolve(key.directoryName());
  }

  Path logFile(RunKey key) {
    return logFile(jobsDir, key);
  }

  /** The output file of a job under a {@code jobs} directory. */
  static Path logFile(Path jobsDir, RunKey key) {
    return jobsDir
        .resolve(key.namespace())
        .resolve(key.name())
        .resolve(key.directoryName())
        .resolve("output.log");
  }

  Path exitCodeFile(RunKey key) {
    return dir(key).resolve("exitcode");
  }

  Path workDir(RunKey key) {
    return dir(key).resolve("work");
  }

  /**
   * Replaces the state file atomically: readers (and a restarted agent) see the old or the new
   * content, never a torn one. The temporary file is flushed to disk before the rename so a power
   * cut cannot leave an empty file under the final name, and the directories after it so that the
   * rename and the job's new directories (directory entries) are on disk too. For the intent, which
   * must be on disk before the process starts.
   */
  void write(JobState state) {
    replace(state, true);
  }

  /**
   * Replaces the state file atomically without waiting for the disk: what follows the intent (the
   * pid, the outcome). An agent that dies loses none of it (it is in the operating system's cache);
   * a power cut, which ends every job as well, can leave an older record, from which recovery finds
   * the job ended ({@link JobRecovery}).
   */
  void update(JobState state) {
    replace(state, false);
  }

  private void replace(JobState state, boolean force) {
    Path dir = dir(state.key());
    try {
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, STATE_FILE, ".tmp");
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.wrap(json.writeValueAsBytes(state)));
        if (force) {
          ch.force(true);
        }
      }
      Files.move(
          tmp,
          dir.resolve(STATE_FILE),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      if (force) {
        // The job's directories may be new too: each entry is on disk once its parent is synced.
        for (Path d = dir; d != null && d.startsWith(jobsDir); d = d.getParent()) {
          try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the state of job " + state.key() + " in " + dir, e);
    }
  }

  /** Every state file under the jobs directory, in path order. */
  List<Path> stateFiles() {
    if (!Files.isDirectory(jobsDir)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(jobsDir, 4)) {
      return walk.filter(p -> p.getFileName().toString().equals(STATE_FILE))
          .sorted(Comparator.naturalOrder())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list job states under " + jobsDir, e);
    }
  }

  JobState read(Path stateFile) throws IOException {
    return json.readValue(stateFile.toFile(), JobState.class);
  }

  /** The key a state file's directory names, for files that cannot be parsed. */
  RunKey keyOf(Path stateFile) {
    Path uid = stateFile.getParent();
    return RunKey.ofDirectory(
        uid.getParent().getParent().getFileName().toString(),
        uid.getParent().getFileName().toString(),
        uid.getFileName().toString());
  }

  /** The exit code the wrapper recorded, if it got to record one. */
  Integer readExitCode(RunKey key) {
    try {
      return Integer.valueOf(Files.readString(exitCodeFile(key)).trim());
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }

  /** When the wrapper wrote the exit code (the process's end), if it did and the time is known. */
  Instant exitCodeWritten(RunKey key) {
    try {
      return Files.getLastModifiedTime(exitCodeFile(key)).toInstant();
    } catch (IOException e) {
      return null;
    }
  }

  /** Removes every file of a job. */
  void delete(RunKey key) {
    Path dir = dir(key);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      List<Path> paths = new ArrayList<>(walk.sorted(Comparator.reverseOrder()).toList());
      for (Path p : paths) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the files of job " + key + " in " + dir, e);
    }
  }
}
