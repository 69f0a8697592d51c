package io.octomy.batch.apiserver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * Durable copy of every object, in one SQLite file (WAL mode, {@code synchronous=FULL}).
 *
 * <p>One row per object, keyed by resource ({@code group/plural}), namespace and name (the primary
 * key is the index), plus the resourceVersion counter, written in the same transaction as the
 * object so that versions keep increasing across restarts even after deletes. Many writes share one
 * transaction ({@link #commit}, group commit), and each is committed before the caller acknowledges
 * it to a client, so {@code kill -9} loses nothing that was answered.
 *
 * <p>Not thread-safe on its own: after start-up only {@link GroupCommit}'s thread writes.
 */
final class SqliteStateStore implements AutoCloseable {

  /** One persisted object, as loaded at start. */
  record Row(String resource, String namespace, String name, String body) {}

  private final Path file;
  private final Connection connection;
  private final PreparedStatement upsert;
  private final PreparedStatement delete;
  private final PreparedStatement counter;
  private volatile long transactions;

  private SqliteStateStore(Path file, Connection connection) throws SQLException {
    this.file = file;
    this.connection = connection;
    this.upsert =
        connection.prepareStatement(
            "INSERT INTO objects(resource, namespace, name, resource_version, body)"
                + " VALUES (?, ?, ?, ?, ?) ON CONFLICT(resource, namespace, name)"
                + " DO UPDATE SET resource_version = excluded.resource_version, body = excluded.body");
    this.delete =
        connection.prepareStatement(
            "DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?");
    this.counter =
        connection.prepareStatement(
            "INSERT INTO counters(name, value) VALUES ('resourceVersion', ?)"
                + " ON CONFLICT(name) DO UPDATE SET value = excluded.value");
  }

  /**
   * Opens (or, when the file does not exist yet, creates) the database.
   *
   * @throws StateStoreException naming the file and the cause when an existing file cannot be read
   *     or is not a healthy SQLite database; the file is left exactly as it was
   */
  static SqliteStateStore open(Path file) {
    boolean exists = Files.exists(file);
    if (exists && (!Files.isReadable(file) || !Files.isWritable(file))) {
      throw new StateStoreException(
          "cannot open state database "
              + file
              + ": no read/write permission; fix the permissions (it was left untouched)",
          null);
    }
    SQLiteConfig config = new SQLiteConfig();
    // An existing file is opened without CREATE, so a vanished or unreadable one is never replaced
    // by an empty one.
    config.setOpenMode(SQLiteOpenMode.READWRITE);
    if (!exists) {
      config.setOpenMode(SQLiteOpenMode.CREATE);
    }
    config.setBusyTimeout(5_000);
    Properties props = config.toProperties();
    Connection connection = null;
    try {
      connection = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath(), props);
      // Read before writing anything: a corrupt or foreign file fails here, untouched.
      check(connection, file);
      if (exists) {
        requireSchema(connection, file);
      }
      try (Statement s = connection.createStatement()) {
        execute(s, "PRAGMA journal_mode=WAL");
        execute(s, "PRAGMA synchronous=FULL");
        s.executeUpdate(
            "CREATE TABLE IF NOT EXISTS objects (resource TEXT NOT NULL, namespace TEXT NOT NULL,"
                + " name TEXT NOT NULL, resource_version INTEGER NOT NULL, body TEXT NOT NULL,"
                + " PRIMARY KEY (resource, namespace, name)) WITHOUT ROWID");
        s.executeUpdate(
            "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
        s.executeUpdate(
            "CREATE TABLE IF NOT EXISTS quarantine (resource TEXT NOT NULL, namespace TEXT NOT"
                + " NULL, name TEXT NOT NULL, body TEXT NOT NULL, reason TEXT NOT NULL,"
                + " quarantined_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)");
      }
      connection.setAutoCommit(false);
      return new SqliteStateStore(file, connection);
    } catch (SQLException e) {
      closeQuietly(connection);
      throw new StateStoreException(
          "cannot open state database "
              + file
              + ": "
              + e.getMessage()
              + " (the file was left untouched; move it away to start empty, or restore a backup)",
          e);
    }
  }

  private static void check(Connection connection, Path file) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA quick_check")) {
      String result = rs.next() ? rs.getString(1) : "no answer";
      if (!"ok".equals(result)) {
        throw new SQLException("integrity check failed: " + result);
      }
    }
  }

  /**
   * An existing file without our tables (emptied, truncated, or its write-ahead log lost before the
   * first checkpoint) would otherwise start as an empty server and silently drop every object.
   */
  private static void requireSchema(Connection connection, Path file) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                    + " AND name IN ('objects', 'counters')")) {
      if (!rs.next() || rs.getInt(1) != 2) {
        throw new SQLException(
            "the file has lost its schema (it is empty or was truncated; was its -wal file"
                + " removed?), so starting would serve nothing of what was stored");
      }
    }
  }

  /** Runs a statement that may answer rows (PRAGMAs do) and closes that answer at once. */
  private static void execute(Statement s, String sql) throws SQLException {
    if (s.execute(sql)) {
      s.getResultSet().close();
    }
  }

  /** The last resourceVersion handed out, or 0 for a new database. */
  long lastResourceVersion() {
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT value FROM counters WHERE name = 'resourceVersion'")) {
      long value = rs.next() ? rs.getLong(1) : 0L;
      // ends the read transaction: an open one would make the closing checkpoint fail with
      // SQLITE_LOCKED
      connection.commit();
      return value;
    } catch (SQLException e) {
      throw failure("read the resourceVersion counter", e);
    }
  }

  /** Every stored object (read once, at start). */
  List<Row> loadAll() {
    List<Row> rows = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT resource, namespace, name, body FROM objects")) {
      while (rs.next()) {
        rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
      }
      connection.commit();
      return rows;
    } catch (SQLException e) {
      throw failure("load objects", e);
    }
  }

  /** Every stored object of one resource. */
  List<Row> loadResource(String resource) {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT resource, namespace, name, body FROM objects WHERE resource = ?")) {
      s.setString(1, resource);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
        }
      }
      connection.commit();
      return rows;
    } catch (SQLException e) {
      throw failure("load objects of " + resource, e);
    }
  }

  /**
   * Moves an object to another resource with a new body, keeping its resourceVersion, in one
   * transaction (the resourceVersion counter is not touched).
   *
   * @return {@code false}, with nothing changed, when the other resource already holds an object of
   *     that namespace and name
   */
  boolean move(Row row, String resource, long resourceVersion, String body) {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO objects(resource, namespace, name, resource_version, body)"
                + " VALUES (?, ?, ?, ?, ?) ON CONFLICT(resource, namespace, name) DO NOTHING")) {
      insert.setString(1, resource);
      insert.setString(2, row.namespace());
      insert.setString(3, row.name());
      insert.setLong(4, resourceVersion);
      insert.setString(5, body);
      if (insert.executeUpdate() == 0) {
        connection.rollback();
        return false;
      }
      delete.setString(1, row.resource());
      delete.setString(2, row.namespace());
      delete.setString(3, row.name());
      delete.executeUpdate();
      connection.commit();
      return true;
    } catch (SQLException e) {
      rollback();
      throw failure(
          "move " + row.resource() + " " + row.namespace() + "/" + row.name() + " to " + resource,
          e);
    }
  }

  /**
   * Moves a row that cannot be served into the {@code quarantine} table, in one transaction, so
   * that nothing is lost and its name is free again.
   */
  void quarantine(Row row, String reason) {
    try (PreparedStatement keep =
        connection.prepareStatement(
            "INSERT INTO quarantine(resource, namespace, name, body, reason)"
                + " VALUES (?, ?, ?, ?, ?)")) {
      keep.setString(1, row.resource());
      keep.setString(2, row.namespace());
      keep.setString(3, row.name());
      keep.setString(4, row.body());
      keep.setString(5, reason == null ? "" : reason);
      keep.executeUpdate();
      delete.setString(1, row.resource());
      delete.setString(2, row.namespace());
      delete.setString(3, row.name());
      delete.executeUpdate();
      connection.commit();
    } catch (SQLException e) {
      rollback();
      throw failure("quarantine " + row.resource() + " " + row.namespace() + "/" + row.name(), e);
    }
  }

  /**
   * One row to write: an object's new body, or (body {@code null}) its removal.
   *
   * @param resourceVersion the version this write hands out; the counter takes the last one
   */
  record RowWrite(
      String resource, String namespace, String name, long resourceVersion, String body) {}

  /** Stores an object and the counter in one committed transaction. */
  void put(String resource, String namespace, String name, long resourceVersion, String body) {
    commit(List.of(new RowWrite(resource, namespace, name, resourceVersion, body)));
  }

  /**
   * Writes every row and the resourceVersion counter (the last row's version) in one transaction
   * and commits it: with {@code synchronous=FULL} the rows are on disk when this returns, all of
   * them or (on failure, rolled back) none.
   *
   * @throws StateStoreException when the transaction cannot be committed; nothing of it is stored
   */
  void commit(List<RowWrite> rows) {
    if (rows.isEmpty()) {
      return;
    }
    RowWrite at = rows.get(0);
    try {
      for (RowWrite row : rows) {
        at = row;
        PreparedStatement s = row.body() == null ? delete : upsert;
        s.setString(1, row.resource());
        s.setString(2, row.namespace());
        s.setString(3, row.name());
        if (row.body() != null) {
          s.setLong(4, row.resourceVersion());
          s.setString(5, row.body());
        }
        s.executeUpdate();
      }
      counter.setLong(1, rows.get(rows.size() - 1).resourceVersion());
      counter.executeUpdate();
      connection.commit();
      transactions++;
    } catch (SQLException e) {
      rollback();
      throw failure(
          "write "
              + (rows.size() == 1 ? "" : rows.size() + " changes, among them ")
              + at.resource()
              + " "
              + at.namespace()
              + "/"
              + at.name(),
          e);
    }
  }

  /** Write transactions committed since this store was opened. */
  long transactions() {
    return transactions;
  }

  private void rollback() {
    try {
      connection.rollback();
    } catch (SQLException ignored) {
      // the original failure is what matters to the caller
    }
  }

  private StateStoreException failure(String what, SQLException e) {
    return new StateStoreException(
        "state database " + file + ": cannot " + what + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    try (connection;
        upsert;
        delete;
        counter) {
      // WAL content is folded into the main file so the directory holds one self-contained file
      // after a clean stop; no read transaction may be open for that
      connection.commit();
      try (Statement s = connection.createStatement()) {
        execute(s, "PRAGMA wal_checkpoint(TRUNCATE)");
      }
      connection.commit();
    } catch (SQLException e) {
      throw failure("close", e);
    }
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // already failing
      }
    }
  }
}
