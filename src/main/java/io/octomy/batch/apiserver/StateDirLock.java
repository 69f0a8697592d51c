package io.octomy.batch.apiserver;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on {@code stateDir/lock}, so that two servers never share one state directory
 * (each would hold its own, diverging, in-memory index). The operating system drops the lock when
 * the process dies, {@code kill -9} included.
 */
final class StateDirLock implements AutoCloseable {

  private final FileChannel channel;
  private final FileLock lock;

  private StateDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static StateDirLock acquire(Path stateDir) throws IOException {
    Path file = stateDir.resolve("lock");
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      // held by this very process (a second server started on the same directory)
      lock = null;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new ServerCannotStart(
          "state directory "
              + stateDir
              + " is in use by another octomy-batch process ("
              + file
              + " is locked); stop that process, or give this one a directory of its own with"
              + " --state-dir",
          null);
    }
    return new StateDirLock(channel, lock);
  }

  @Override
  public void close() throws IOException {
    try (channel) {
      lock.release();
    }
  }
}
