package io.octomy.batch.controller.visibility;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a job's output file as {@code kubectl logs} reads a container's: all of it or its last
 * lines ({@code tailLines}), of which {@code limitBytes} keeps at most so many bytes from the
 * start. The output is never more than the file's last {@link #MAX_BYTES}, so a huge log cannot
 * exhaust the server, and only the bytes answered are held in memory.
 */
final class JobOutputText {

  /** The most returned by one request: of a longer output, its end. */
  static final long MAX_BYTES = 16L << 20;

  /** How much of the file is read at once while looking for the start of the last lines. */
  private static final int SCAN_CHUNK = 64 * 1024;

  private JobOutputText() {}

  /**
   * @param tailLines the last lines only, or null for all
   * @param limitBytes at most this many bytes from the start of those lines (as the kubelet cuts a
   *     container's log), or null for all of them
   */
  static byte[] read(Path file, Long tailLines, Long limitBytes) throws IOException {
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString());
    }
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long size = f.length();
      long start = Math.max(0, size - MAX_BYTES);
      if (tailLines != null) {
        start = startOfLastLines(f, start, size, tailLines);
      }
      long length = size - start;
      if (limitBytes != null) {
        length = Math.min(length, Math.max(0, limitBytes));
      }
      byte[] bytes = new byte[(int) length];
      f.seek(start);
      f.readFully(bytes);
      return bytes;
    }
  }

  /**
   * Where the last {@code n} lines of the file's bytes from {@code from} to {@code size} start
   * ({@code from} when there are fewer; a final line without a newline counts as one), read
   * backwards a chunk at a time.
   */
  private static long startOfLastLines(RandomAccessFile f, long from, long size, long n)
      throws IOException {
    if (n <= 0) {
      return size;
    }
    long end = size;
    if (end > from) {
      f.seek(end - 1);
      if (f.read() == '\n') {
        end--; // the newline that ends the last line does not start another one
      }
    }
    byte[] chunk = new byte[SCAN_CHUNK];
    long seen = 0;
    for (long pos = end; pos > from; ) {
      int len = (int) Math.min(SCAN_CHUNK, pos - from);
      pos -= len;
      f.seek(pos);
      f.readFully(chunk, 0, len);
      for (int i = len - 1; i >= 0; i--) {
        if (chunk[i] == '\n' && ++seen == n) {
          return pos + i + 1;
        }
      }
    }
    return from;
  }
}
