package io.octomy.batch.apiserver;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The state directory holds every object (Secrets included), job output and the kubeconfig with the
 * token, so only its owner may read it: the directory is 0700 and the database files 0600, also for
 * a directory made by an older version with looser modes.
 */
final class StateDirPermissions {

  private StateDirPermissions() {}

  /** Creates the directory when missing and makes it 0700. */
  static void restrictDirectory(Path stateDir) throws IOException {
    if (!posix()) {
      Files.createDirectories(stateDir);
      return;
    }
    if (!Files.isDirectory(stateDir)) {
      Files.createDirectories(
          stateDir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    Files.setPosixFilePermissions(stateDir, PosixFilePermissions.fromString("rwx------"));
  }

  /** Makes {@code state.db} and its -wal and -shm files 0600 (SQLite creates them 0644). */
  static void restrictDatabaseFiles(Path stateDir) throws IOException {
    if (!posix()) {
      return;
    }
    for (String name : new String[] {"state.db", "state.db-wal", "state.db-shm"}) {
      Path file = stateDir.resolve(name);
      if (Files.exists(file)) {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      }
    }
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
