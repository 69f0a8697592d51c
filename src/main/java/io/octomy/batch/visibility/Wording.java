package io.octomy.batch.visibility;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** The small pieces the sentences are made of: times, durations, lists. */
final class Wording {

  private Wording() {}

  /** "2026-03-01T10:42:00Z (in 12m)"; "now" for a time not after {@code now}. */
  static String at(Instant when, Instant now) {
    String in = in(when, now);
    return in.equals("now") ? in : when.truncatedTo(ChronoUnit.SECONDS) + " (in " + in + ")";
  }

  /** "12m" from {@code now} to {@code when}; "now" for a time not after {@code now}. */
  static String in(Instant when, Instant now) {
    return when.isAfter(now) ? duration(Duration.between(now, when)) : "now";
  }

  /** Kubernetes style, rounded to the second: 45s, 12m, 1h5m, 2d3h. */
  static String duration(Duration d) {
    long s = Math.max(0, d.toSeconds() + (d.toNanosPart() >= 500_000_000 ? 1 : 0));
    if (s >= 86_400) {
      return s / 86_400 + "d" + (s % 86_400 >= 3600 ? (s % 86_400) / 3600 + "h" : "");
    }
    StringBuilder b = new StringBuilder();
    if (s >= 3600) {
      b.append(s / 3600).append('h');
      s %= 3600;
    }
    if (s >= 60) {
      b.append(s / 60).append('m');
      s %= 60;
    }
    if (s > 0 || b.length() == 0) {
      b.append(s).append('s');
    }
    return b.toString();
  }

  /** "a", "a and b", "a, b and c". */
  static String and(List<String> parts) {
    if (parts.size() <= 1) {
      return parts.isEmpty() ? "" : parts.get(0);
    }
    return String.join(", ", parts.subList(0, parts.size() - 1))
        + " and "
        + parts.get(parts.size() - 1);
  }

  /** "1 run", "12 runs". */
  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
