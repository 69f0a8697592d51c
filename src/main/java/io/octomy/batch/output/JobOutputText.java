package io.octomy.batch.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads a job's output file as {@code kubectl logs} reads a container's: all of it or its last
 * lines ({@code tailLines}), of which {@code limitBytes} keeps at most so many bytes from the
 * start. The output is never more than the file's last {@link #MAX_BYTES}, so a huge log cannot
 * exhaust the server, and only the bytes answered are held in memory.
 *
 * <p>The job can change its own directory at will, so the file is read only when it is a regular
 * file in that directory (a FIFO, a device or a symbolic link out of it is refused with {@link
 * Unreadable}), it is opened in a way that never waits, and the read is cut off after {@link
 * #READ_BOUND}: nothing a job does there can hold the request thread that reads it.
 */
public final class JobOutputText {

  /** The most returned by one request: of a longer output, its end. */
  public static final long MAX_BYTES = 16L << 20;

  /** The longest one read may take before its file is closed under it. */
  public static final Duration READ_BOUND = Duration.ofSeconds(10);

  /** How much of the file is read at once while looking for the start of the last lines. */
  private static final int SCAN_CHUNK = 64 * 1024;

  /** Closes the files of reads past their bound; a close ends a read blocked in the kernel. */
  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "job-output-deadline");
            t.setDaemon(true);
            return t;
          });

  /** An output file that is not read, with a sentence saying why. */
  public static final class Unreadable extends IOException {
    private final boolean timedOut;

    Unreadable(String message) {
      this(message, false);
    }

    Unreadable(String message, boolean timedOut) {
      super(message);
      this.timedOut = timedOut;
    }

    /** Whether the read was cut off at its bound, rather than refused. */
    public boolean timedOut() {
      return timedOut;
    }
  }

  private JobOutputText() {}

  /**
   * @param tailLines the last lines only, or null for all
   * @param limitBytes at most this many bytes from the start of those lines (as the kubelet cuts a
   *     container's log), or null for all of them
   */
  public static byte[] read(Path file, Long tailLines, Long limitBytes) throws IOException {
    return read(file, tailLines, limitBytes, READ_BOUND);
  }

  static byte[] read(Path file, Long tailLines, Long limitBytes, Duration bound)
      throws IOException {
    Path regular = regularFile(file);
    BasicFileAttributes before = attributes(regular);
    try (FileChannel f = open(regular)) {
      BasicFileAttributes after = attributes(regular);
      if (!after.isRegularFile() || !Objects.equals(before.fileKey(), after.fileKey())) {
        throw new Unreadable(file + " was replaced while it was opened; ask again.");
      }
      return bounded(f, bound, c -> readFrom(c, tailLines, limitBytes));
    }
  }

  /** The file itself, or the regular file in the same directory its symbolic link names. */
  private static Path regularFile(Path file) throws IOException {
    BasicFileAttributes a = attributes(file); // NoSuchFileException when nothing is written yet
    Path target = file;
    if (a.isSymbolicLink()) {
      Path dir = file.toAbsolutePath().getParent().toRealPath();
      target = file.toRealPath();
      if (!target.startsWith(dir)) {
        throw new Unreadable(
            file
                + " is a symbolic link to "
                + target
                + ", out of the job's directory; only a regular file in the job's own directory"
                + " is read as its output.");
      }
      a = attributes(target);
    }
    if (!a.isRegularFile()) {
      throw new Unreadable(
          file
              + " is "
              + kind(target, a)
              + ", not a regular file (the job replaced it); only a regular file is read as a"
              + " job's output.");
    }
    return target;
  }

  /**
   * Opened for reading and writing although it is only read: so opened, a FIFO swapped in after the
   * check above does not wait for a writer (Linux and macOS), where a read-only open would wait for
   * ever; a FIFO cannot seek, which refuses it here.
   */
  private static FileChannel open(Path regular) throws IOException {
    FileChannel f;
    try {
      f =
          FileChannel.open(
              regular,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS);
    } catch (AccessDeniedException e) {
      throw new Unreadable(regular + " cannot be opened: permission denied.");
    }
    try {
      f.position(0);
      return f;
    } catch (IOException e) {
      f.close();
      throw new Unreadable(regular + " is not a regular file (it cannot seek); ask again.");
    }
  }

  /** A read of an open file. */
  interface ChannelRead<T> {
    T apply(FileChannel f) throws IOException;
  }

  /** {@code read} of {@code f}, which is closed under it once {@code bound} has passed. */
  static <T> T bounded(FileChannel f, Duration bound, ChannelRead<T> read) throws IOException {
    ScheduledFuture<?> deadline =
        DEADLINES.schedule(() -> closeQuietly(f), bound.toMillis(), TimeUnit.MILLISECONDS);
    try {
      return read.apply(f);
    } catch (ClosedChannelException e) {
      throw new Unreadable(
          "reading it took longer than " + bound.toMillis() + " ms and was cut off; ask again.",
          true);
    } finally {
      deadline.cancel(false);
    }
  }

  private static byte[] readFrom(FileChannel f, Long tailLines, Long limitBytes)
      throws IOException {
    long size = f.size();
    long start = Math.max(0, size - MAX_BYTES);
    if (tailLines != null) {
      start = startOfLastLines(f, start, size, tailLines);
    }
    long length = size - start;
    if (limitBytes != null) {
      length = Math.min(length, Math.max(0, limitBytes));
    }
    byte[] bytes = new byte[(int) length];
    readFully(f, start, bytes, bytes.length);
    return bytes;
  }

  /**
   * Where the last {@code n} lines of the file's bytes from {@code from} to {@code size} start
   * ({@code from} when there are fewer; a final line without a newline counts as one), read
   * backwards a chunk at a time.
   */
  private static long startOfLastLines(FileChannel f, long from, long size, long n)
      throws IOException {
    if (n <= 0) {
      return size;
    }
    long end = size;
    byte[] chunk = new byte[SCAN_CHUNK];
    if (end > from) {
      readFully(f, end - 1, chunk, 1);
      if (chunk[0] == '\n') {
        end--; // the newline that ends the last line does not start another one
      }
    }
    long seen = 0;
    for (long pos = end; pos > from; ) {
      int len = (int) Math.min(SCAN_CHUNK, pos - from);
      pos -= len;
      readFully(f, pos, chunk, len);
      for (int i = len - 1; i >= 0; i--) {
        if (chunk[i] == '\n' && ++seen == n) {
          return pos + i + 1;
        }
      }
    }
    return from;
  }

  /** {@code length} bytes from {@code position}; a file cut shorter meanwhile reads as zeros. */
  private static void readFully(FileChannel f, long position, byte[] into, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(into, 0, length);
    while (buffer.hasRemaining()) {
      if (f.read(buffer, position + buffer.position()) < 0) {
        return;
      }
    }
  }

  private static BasicFileAttributes attributes(Path p) throws IOException {
    return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  /** "a FIFO", "a device", ...: from the Unix file type where the platform tells it. */
  private static String kind(Path p, BasicFileAttributes a) {
    if (a.isDirectory()) {
      return "a directory";
    }
    try {
      int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      switch (mode & 0170000) {
        case 0010000:
          return "a FIFO";
        case 0020000:
          return "a character device";
        case 0060000:
          return "a block device";
        case 0140000:
          return "a socket";
        default:
          break;
      }
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      // said plainly below
    }
    return "a special file (a FIFO, a device or a socket)";
  }

  private static void closeQuietly(FileChannel f) {
    try {
      f.close();
    } catch (IOException e) {
      // closed to end a read that took too long: nothing more to do
    }
  }
}
