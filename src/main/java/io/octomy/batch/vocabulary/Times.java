package io.octomy.batch.vocabulary;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** RFC 3339 timestamps as Kubernetes writes them: UTC, whole seconds (or microseconds). */
public final class Times {
  private Times() {}

  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  public static String format(Instant t) {
    return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * To the microsecond, as Kubernetes writes a MicroTime ({@code 2026-03-01T12:00:00.000001Z}); a
   * whole second is written as {@link #format} writes it.
   */
  public static String formatMicros(Instant t) {
    if (t == null) {
      return null;
    }
    Instant micros = t.truncatedTo(ChronoUnit.MICROS);
    return micros.getNano() == 0 ? format(micros) : MICROS.format(micros);
  }

  /** Null for null or unreadable text: a timestamp someone mangled is treated as absent. */
  public static Instant parse(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
