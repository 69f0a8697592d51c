package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for the {@link ObjectStore}: many writes share one durable SQLite transaction, and
 * none is acknowledged, read or announced before that transaction is on disk.
 *
 * <p>A write is <em>staged</em> under the store's lock (its change decided, its resourceVersion
 * handed out) and its writer waits. One committer thread takes everything staged so far, writes it
 * in one transaction and commits ({@code synchronous=FULL}: on disk when the commit returns), then,
 * under the store's lock again, makes the batch visible in resourceVersion order and wakes its
 * writers. While one batch is being committed the next one gathers, so the number of commits per
 * second stays what the disk allows while the writes per commit grow with the load.
 *
 * <p>Later writes to an object that is staged but not yet durable build on the staged state (a
 * patch after a create sees the create), through {@link #latest}. If a commit fails, nothing of it
 * is stored: its writes and every write staged after it (which may build on them) fail, the staged
 * state is dropped, and the store carries on from what is durable.
 */
final class GroupCommit implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

  /** A write decided but not yet durable: removal when {@code object} is null. */
  static final class Staged {
    final String key;
    final SqliteStateStore.RowWrite row;
    final ObjectStore.EventType type;
    final ObjectNode object;
    final long bytes;
    final CompletableFuture<Void> durable = new CompletableFuture<>();

    Staged(
        String key,
        SqliteStateStore.RowWrite row,
        ObjectStore.EventType type,
        ObjectNode object,
        long bytes) {
      this.key = key;
      this.row = row;
      this.type = type;
      this.object = object;
      this.bytes = bytes;
    }

    long resourceVersion() {
      return row.resourceVersion();
    }

    boolean removes() {
      return row.body() == null;
    }
  }

  /** Writes rows in one transaction and returns once it is on disk; all or (throwing) none. */
  @FunctionalInterface
  interface Durability {
    void commit(List<SqliteStateStore.RowWrite> rows);
  }

  /** What the store does once a batch is durable (under its lock) or lost. */
  interface Outcome {
    /** The batch is on disk: make it visible, in order. Called under the store's lock. */
    void durable(List<Staged> batch);

    /** Everything staged is dropped; the store returns to what is durable. Under the lock. */
    void dropped();
  }

  private final Durability db;
  private final ReentrantLock lock;
  private final Condition staged;
  private final Outcome outcome;
  private final Thread committer;
  private List<Staged> batch = new ArrayList<>();
  private final Map<String, Staged> pending = new HashMap<>();
  private boolean closed;

  /**
   * @param lock the store's lock: staging, visibility and {@link #latest} happen under it
   */
  GroupCommit(Durability db, ReentrantLock lock, Outcome outcome) {
    this.db = db;
    this.lock = lock;
    this.staged = lock.newCondition();
    this.outcome = outcome;
    this.committer = new Thread(this::commitLoop, "octomy-store-commit");
    committer.setDaemon(true);
    committer.start();
  }

  /**
   * The latest staged write of {@code key} that is not durable yet, or null. Call under the lock.
   */
  Staged latest(String key) {
    return pending.get(key);
  }

  /** Stages a write for the next commit. Call under the lock. */
  void stage(Staged write) {
    if (closed) {
      throw new StateStoreException("the state database is closed", null);
    }
    batch.add(write);
    pending.put(write.key, write);
    staged.signal();
  }

  /** Waits until the write is durable (and visible); outside the lock. */
  static void await(Staged write) {
    try {
      write.durable.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
  }

  private void commitLoop() {
    while (true) {
      List<Staged> taken;
      lock.lock();
      try {
        while (batch.isEmpty() && !closed) {
          staged.awaitUninterruptibly();
        }
        if (batch.isEmpty()) {
          return; // closed, and nothing left to commit
        }
        taken = batch;
        batch = new ArrayList<>();
      } finally {
        lock.unlock();
      }
      commit(taken);
    }
  }

  private void commit(List<Staged> taken) {
    List<SqliteStateStore.RowWrite> rows = new ArrayList<>(taken.size());
    taken.forEach(s -> rows.add(s.row));
    try {
      db.commit(rows);
    } catch (RuntimeException | Error e) {
      List<Staged> lost = new ArrayList<>(taken);
      lock.lock();
      try {
        lost.addAll(batch);
        batch = new ArrayList<>();
        pending.clear();
        outcome.dropped();
      } finally {
        lock.unlock();
      }
      LOG.error("state database commit of {} writes failed; none was acknowledged", lost.size(), e);
      lost.forEach(s -> s.durable.completeExceptionally(e));
      return;
    }
    lock.lock();
    try {
      for (Staged s : taken) {
        pending.remove(s.key, s); // a later write to the same object stays staged
      }
      outcome.durable(taken);
    } catch (RuntimeException | Error e) {
      // The writes are on disk; a listener that failed (or ran out of memory) must neither leave
      // their writers waiting nor stop the committer.
      LOG.error("announcing {} durable writes failed", taken.size(), e);
    } finally {
      lock.unlock();
      taken.forEach(s -> s.durable.complete(null));
    }
  }

  /** Commits what is staged, then stops; later writes fail. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      staged.signal();
    } finally {
      lock.unlock();
    }
    try {
      committer.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
