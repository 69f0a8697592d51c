package io.octomy.batch.apiserver;

import java.nio.file.Path;

/**
 * Writes a row straight into a stopped server's state database, as an older version may have left
 * it, for tests outside this package that start the server as a process.
 */
public final class StateDatabaseRows {

  private StateDatabaseRows() {}

  /** Stores {@code json} under {@code resource}, namespace and name at {@code resourceVersion}. */
  public static void put(
      Path database,
      String resource,
      String namespace,
      String name,
      long resourceVersion,
      String json) {
    try (SqliteStateStore db = SqliteStateStore.open(database)) {
      db.put(resource, namespace, name, resourceVersion, json);
    }
  }
}
