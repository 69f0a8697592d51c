package io.octomy.batch.standalone;

import java.util.function.Consumer;

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
   * A document of {@code length} bytes that {@code writer} hands, piece after piece, to the
   * consumer it is given; it may be written more than once (it writes from a snapshot) and must
   * hand over exactly {@code length} bytes.
   */
  record InPieces(long length, Consumer<Consumer<byte[]>> writer) implements AnswerBody {

    /** How much a piece holds at most, beyond a single larger object. */
    static final int PIECE_BYTES = 64 * 1024;

    public InPieces {
      if (length < 0) {
        throw new IllegalArgumentException("a body's length cannot be negative: " + length);
      }
    }

    /** Hands the document to {@code piece} in pieces, and checks it came to {@link #length}. */
    void writeTo(Consumer<byte[]> piece) {
      long[] written = {0};
      writer.accept(
          bytes -> {
            if (written[0] + bytes.length > length) {
              throw new IllegalStateException(
                  "an answer written in pieces ran past its " + length + " bytes");
            }
            written[0] += bytes.length;
            piece.accept(bytes);
          });
      if (written[0] != length) {
        throw new IllegalStateException(
            "an answer written in pieces came to " + written[0] + " bytes, not " + length);
      }
    }

    @Override
    public byte[] bytes() {
      if (length > Integer.MAX_VALUE - 16) {
        throw new ApiException(
            500, "InternalError", "the answer is too large to read at once: ask for it in pages");
      }
      byte[] whole = new byte[(int) length];
      int[] at = {0};
      writeTo(
          bytes -> {
            System.arraycopy(bytes, 0, whole, at[0], bytes.length);
            at[0] += bytes.length;
          });
      return whole;
    }
  }
}
