package io.octomy.batch.controller.visibility;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads a job's output file as {@code kubectl logs} reads a container's: all of it, its last lines
 * ({@code tailLines}) or at most so many bytes from its end ({@code limitBytes}), never more than
 * {@link #MAX_BYTES} at once so a huge log cannot exhaust the server.
 */
final class JobOutputText {

  /** The most returned by one request; ask with tailLines or limitBytes for less. */
  static final long MAX_BYTES = 16L << 20;

  private JobOutputText() {}

  /**
   * @param tailLines the last lines only, or null for all
   * @param limitBytes at most this many bytes from the end, or null for {@link #MAX_BYTES}
   */
  static byte[] read(Path file, Long tailLines, Long limitBytes) throws IOException {
    if (!Files.exists(file)) {
      throw new NoSuchFileException(file.toString());
    }
    long limit = Math.min(MAX_BYTES, limitBytes == null ? MAX_BYTES : Math.max(0, limitBytes));
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long size = f.length();
      long start = Math.max(0, size - limit);
      byte[] bytes = new byte[(int) (size - start)];
      f.seek(start);
      f.readFully(bytes);
      return tailLines == null ? bytes : lastLines(bytes, tailLines);
    }
  }

  /** The last {@code n} lines (a final line without a newline counts as one). */
  static byte[] lastLines(byte[] bytes, long n) {
    if (n <= 0) {
      return new byte[0];
    }
    int end = bytes.length;
    if (end > 0 && bytes[end - 1] == '\n') {
      end--; // the newline that ends the last line does not start another one
    }
    long seen = 0;
    for (int i = end - 1; i >= 0; i--) {
      if (bytes[i] == '\n' && ++seen == n) {
        return Arrays.copyOfRange(bytes, i + 1, bytes.length);
      }
    }
    return bytes;
  }
}
