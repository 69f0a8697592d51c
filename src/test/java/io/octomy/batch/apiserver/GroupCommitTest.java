package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit on its own, with a disk that can be held still or made to fail: which writes share a
 * commit, when a writer is answered, and what a failed commit takes with it.
 */
class GroupCommitTest {

  /** A disk whose commits can be held until released, and made to fail. */
  static final class Disk implements GroupCommit.Durability {
    final List<List<Long>> commits = Collections.synchronizedList(new ArrayList<>());
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    volatile CountDownLatch hold = new CountDownLatch(0);
    volatile CountDownLatch entered = new CountDownLatch(1);
    volatile RuntimeException failure;

    @Override
    public void commit(List<SqliteStateStore.RowWrite> rows) {
      entered.countDown();
      try {
        assertThat(hold.await(30, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
      if (failure != null) {
        throw failure;
      }
      commits.add(rows.stream().map(SqliteStateStore.RowWrite::resourceVersion).toList());
      log.add("on disk " + rows.get(rows.size() - 1).resourceVersion());
    }
  }

  private final Disk disk = new Disk();
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Long> visible = Collections.synchronizedList(new ArrayList<>());
  private int dropped;
  private final GroupCommit commits =
      new GroupCommit(
          disk,
          lock,
          new GroupCommit.Outcome() {
            @Override
            public void durable(List<GroupCommit.Staged> batch) {
              batch.forEach(s -> visible.add(s.resourceVersion()));
            }

            @Override
            public void dropped() {
              dropped++;
            }
          });

  @AfterEach
  void close() {
    disk.hold = new CountDownLatch(0);
    commits.close();
  }

  private GroupCommit.Staged stage(String name, long version) {
    ObjectNode object = new ObjectMapper().createObjectNode().put("name", name);
    GroupCommit.Staged s =
        new GroupCommit.Staged(
            name,
            new SqliteStateStore.RowWrite("/configmaps", "default", name, version, "{}"),
            ObjectStore.EventType.ADDED,
            object,
            2);
    lock.lock();
    try {
      commits.stage(s);
    } finally {
      lock.unlock();
    }
    return s;
  }

  private GroupCommit.Staged latest(String key) {
    lock.lock();
    try {
      return commits.latest(key);
    } finally {
      lock.unlock();
    }
  }

  @Test
  void writesStagedWhileACommitRunsShareTheNextCommit() throws Exception {
    disk.hold = new CountDownLatch(1);
    stage("a", 1);
    assertThat(disk.entered.await(30, TimeUnit.SECONDS)).isTrue(); // a's commit is under way
    stage("b", 2);
    stage("c", 3);
    GroupCommit.Staged d = stage("d", 4);

    disk.hold.countDown();
    GroupCommit.await(d);

    assertThat(disk.commits).containsExactly(List.of(1L), List.of(2L, 3L, 4L));
    assertThat(visible).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aWriterIsAnsweredOnlyOnceItsCommitIsOnDiskAndVisible() throws Exception {
    disk.hold = new CountDownLatch(1);
    GroupCommit.Staged a = stage("a", 1);
    assertThat(disk.entered.await(30, TimeUnit.SECONDS)).isTrue();

    assertThat(a.durable).isNotDone();
    assertThat(visible).isEmpty();
    assertThat(latest("a")).isSameAs(a); // later writes to "a" build on it meanwhile

    disk.hold.countDown();
    GroupCommit.await(a);
    assertThat(disk.log).containsExactly("on disk 1");
    assertThat(visible).containsExactly(1L);
    assertThat(latest("a")).isNull();
  }

  @Test
  void aFailedCommitFailsItsWritesAndEveryWriteStagedAfterThem() throws Exception {
    disk.hold = new CountDownLatch(1);
    disk.failure = new StateStoreException("disk full", null);
    GroupCommit.Staged a = stage("a", 1);
    assertThat(disk.entered.await(30, TimeUnit.SECONDS)).isTrue();
    GroupCommit.Staged b = stage("b", 2); // may build on a: cannot stand without it

    disk.hold.countDown();

    assertThatThrownBy(() -> GroupCommit.await(a)).hasMessageContaining("disk full");
    assertThatThrownBy(() -> GroupCommit.await(b)).hasMessageContaining("disk full");
    assertThat(visible).isEmpty();
    assertThat(latest("a")).isNull();
    assertThat(latest("b")).isNull();
    assertThat(dropped).isEqualTo(1);

    disk.failure = null; // the disk recovers: the next write is stored
    GroupCommit.await(stage("c", 1));
    assertThat(visible).containsExactly(1L);
  }

  @Test
  void closingCommitsWhatIsStagedAndRefusesMore() throws Exception {
    disk.hold = new CountDownLatch(1);
    stage("a", 1);
    assertThat(disk.entered.await(30, TimeUnit.SECONDS)).isTrue();
    GroupCommit.Staged b = stage("b", 2);
    Thread closer = new Thread(commits::close);
    closer.start();

    disk.hold.countDown();
    closer.join(30_000);

    assertThat(b.durable).isCompleted();
    assertThat(visible).containsExactly(1L, 2L);
    assertThatThrownBy(() -> stage("c", 3)).isInstanceOf(StateStoreException.class);
  }
}
