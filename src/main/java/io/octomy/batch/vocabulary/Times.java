package io.octomy.batch.vocabulary;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** RFC 3339 timestamps as Kubernetes writes them: UTC, whole seconds. */
public final class Times {
  private Times() {}

  public static String format(Instant t) {
    return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
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
