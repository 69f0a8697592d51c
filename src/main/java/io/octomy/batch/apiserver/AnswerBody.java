package io.octomy.batch.apiserver;

import java.util.Iterator;
import java.util.function.Supplier;

/**
 * The body of an {@link ApiResponse}: bytes built whole, or a document of known length written in
 * pieces as its connection takes them.
 *
 * <p>Why pieces: a list of every object is the largest answer the server gives (about 100 MB for
 * 33,000 BatchJobs). Built whole it was held once as bytes and once more in the connection's
 * buffer, on top of the objects themselves; on a heap near its mark ({@link HeapRoom}) that was
 * enough to run it out. Written in pieces, a list holds one piece at a time beyond the objects,
 * whatever its length. A client in this process ({@link InMemoryHttpClient}) reads the body whole:
 * it reads a list into objects all the same.
 */
sealed interface AnswerBody permits AnswerBody.Whole, AnswerBody.InPieces {

  /** The body's length in bytes, known before any of it is written (the Content-Length). */
  long length();

  /** The body as one array (built now when it is written in pieces). */
  byte[] bytes();

  /** Bytes built whole. */
  record Whole(byte[] bytes) implements AnswerBody {
    @Override
    public long length() {
      return bytes.length;
    }
  }

  /**
   * A document of {@code length} bytes whose pieces {@code source} gives, in order, each time it is
   * asked (it reads from a snapshot); together they must come to exactly {@code length} bytes.
   */
  record InPieces(long length, Supplier<Iterator<byte[]>> source) implements AnswerBody {

    /** How much a piece holds at most, beyond a single larger object. */
    static final int PIECE_BYTES = 64 * 1024;

    public InPieces {
      if (length < 0) {
        throw new IllegalArgumentException("a body's length cannot be negative: " + length);
      }
    }

    /**
     * The pieces, checked: one that would run past {@link #length} is not handed over, and the last
     * is followed by a check that they came to it (both an {@link IllegalStateException}).
     */
    Iterator<byte[]> pieces() {
      Iterator<byte[]> from = source.get();
      return new Iterator<>() {
        private long given;

        @Override
        public boolean hasNext() {
          if (from.hasNext()) {
            return true;
          }
          if (given != length) {
            throw new IllegalStateException(
                "an answer written in pieces came to " + given + " bytes, not " + length);
          }
          return false;
        }

        @Override
        public byte[] next() {
          byte[] piece = from.next();
          if (given + piece.length > length) {
            throw new IllegalStateException(
                "an answer written in pieces ran past its " + length + " bytes");
          }
          given += piece.length;
          return piece;
        }
      };
    }

    @Override
    public byte[] bytes() {
      if (length > Integer.MAX_VALUE - 16) {
        throw new ApiException(
            500, "InternalError", "the answer is too large to read at once: ask for it in pages");
      }
      byte[] whole = new byte[(int) length];
      int at = 0;
      for (Iterator<byte[]> it = pieces(); it.hasNext(); ) {
        byte[] piece = it.next();
        System.arraycopy(piece, 0, whole, at, piece.length);
        at += piece.length;
      }
      return whole;
    }
  }
}
