package io.octomy.batch.apiserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Committed JSON text in the compact form the store keeps in memory: its UTF-8 bytes deflated
 * against a dictionary of a typical stored BatchJob ({@value #DICTIONARY}).
 *
 * <p>Why: the store holds every object it serves, and a BatchJob's text (2.5 KB, half of it field
 * owners) was the largest part of the server's heap per job; most of it repeats from job to job, so
 * against the dictionary a job packs into about 300 bytes. Reads unpack what they need (a get one
 * object, a list page its items), a few microseconds each. The database keeps the plain text: this
 * form lives only in memory, so the dictionary may change from one version to the next.
 *
 * <p>Format: one byte {@link #PLAIN} or {@link #DEFLATED}, then the UTF-8 length as four bytes,
 * then the bytes (plain) or the raw deflate stream. A text that deflating would not shorten is kept
 * plain.
 */
final class CompactText {

  static final String DICTIONARY = "compact-text-dictionary.json";

  static final byte PLAIN = 0;
  static final byte DEFLATED = 1;

  private static final int HEAD = 5;

  /** Deflaters and inflaters kept for reuse (each holds native memory); more are made as needed. */
  private static final int POOLED = 8;

  private static final byte[] DICTIONARY_BYTES = readDictionary();
  private static final ConcurrentLinkedQueue<Deflater> DEFLATERS = new ConcurrentLinkedQueue<>();
  private static final ConcurrentLinkedQueue<Inflater> INFLATERS = new ConcurrentLinkedQueue<>();

  private CompactText() {}

  /** {@code text} in compact form. */
  static byte[] pack(String text) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    Deflater d = DEFLATERS.poll();
    if (d == null) {
      d = new Deflater(Deflater.BEST_SPEED, true);
    }
    try {
      d.setDictionary(DICTIONARY_BYTES);
      d.setInput(utf8);
      d.finish();
      // never longer than plain: a stream that does not fit in the plain length is not kept
      byte[] out = new byte[HEAD + utf8.length];
      int n = HEAD;
      while (!d.finished() && n < out.length) {
        n += d.deflate(out, n, out.length - n);
      }
      if (!d.finished()) {
        return plain(utf8);
      }
      out[0] = DEFLATED;
      writeLength(out, utf8.length);
      return Arrays.copyOf(out, n);
    } finally {
      d.reset();
      if (DEFLATERS.size() < POOLED) {
        DEFLATERS.offer(d);
      } else {
        d.end();
      }
    }
  }

  /** The UTF-8 bytes of a packed text. */
  static byte[] utf8(byte[] packed) {
    int length = readLength(packed);
    if (packed[0] == PLAIN) {
      return Arrays.copyOfRange(packed, HEAD, HEAD + length);
    }
    byte[] out = inflate(packed, length);
    if (out == null) {
      throw new IllegalStateException("a packed text ends before its " + length + " bytes");
    }
    return out;
  }

  /** The length in UTF-8 bytes of a packed text, without unpacking it. */
  static int utf8Length(byte[] packed) {
    return readLength(packed);
  }

  /** Whether a packed text's UTF-8 bytes start with {@code prefix}; unpacks only that far. */
  static boolean startsWith(byte[] packed, byte[] prefix) {
    if (readLength(packed) < prefix.length) {
      return false;
    }
    if (packed[0] == PLAIN) {
      return Arrays.equals(packed, HEAD, HEAD + prefix.length, prefix, 0, prefix.length);
    }
    byte[] start = inflate(packed, prefix.length);
    return start != null && Arrays.equals(start, prefix);
  }

  /** The first {@code count} UTF-8 bytes of a deflated text; null when it ends before them. */
  private static byte[] inflate(byte[] packed, int count) {
    Inflater i = INFLATERS.poll();
    if (i == null) {
      i = new Inflater(true);
    }
    try {
      i.setDictionary(DICTIONARY_BYTES);
      i.setInput(packed, HEAD, packed.length - HEAD);
      byte[] out = new byte[count];
      int n = 0;
      while (n < count) {
        int got = i.inflate(out, n, count - n);
        if (got == 0) {
          return null;
        }
        n += got;
      }
      return out;
    } catch (DataFormatException e) {
      throw new IllegalStateException("a packed text does not inflate", e);
    } finally {
      i.reset();
      if (INFLATERS.size() < POOLED) {
        INFLATERS.offer(i);
      } else {
        i.end();
      }
    }
  }

  /** The text a {@link #pack} gave. */
  static String unpack(byte[] packed) {
    return new String(utf8(packed), StandardCharsets.UTF_8);
  }

  private static byte[] plain(byte[] utf8) {
    byte[] out = new byte[HEAD + utf8.length];
    out[0] = PLAIN;
    writeLength(out, utf8.length);
    System.arraycopy(utf8, 0, out, HEAD, utf8.length);
    return out;
  }

  private static void writeLength(byte[] out, int length) {
    out[1] = (byte) (length >>> 24);
    out[2] = (byte) (length >>> 16);
    out[3] = (byte) (length >>> 8);
    out[4] = (byte) length;
  }

  private static int readLength(byte[] packed) {
    return ((packed[1] & 0xff) << 24)
        | ((packed[2] & 0xff) << 16)
        | ((packed[3] & 0xff) << 8)
        | (packed[4] & 0xff);
  }

  private static byte[] readDictionary() {
    try (InputStream in = CompactText.class.getResourceAsStream(DICTIONARY)) {
      if (in == null) {
        throw new IllegalStateException(DICTIONARY + " is missing from the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
