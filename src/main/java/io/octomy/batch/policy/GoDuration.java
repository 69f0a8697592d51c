package io.octomy.batch.policy;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Kubernetes/Go style durations: {@code 90s}, {@code 1h30m}, {@code 1.5h}, {@code 500ms}. */
public final class GoDuration {

  private static final Pattern WHOLE = Pattern.compile("((\\d+(\\.\\d+)?)(ns|us|µs|ms|s|m|h))+");
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

  private GoDuration() {}

  /** Parses a duration; throws IllegalArgumentException with a sentence that says what to write. */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a duration is empty; write one like 90s or 1h30m");
    }
    String s = text.trim();
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (!WHOLE.matcher(s).matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration; write one like 90s, 5m or 1h30m");
    }
    BigDecimal nanos = BigDecimal.ZERO;
    Matcher m = PART.matcher(s);
    while (m.find()) {
      BigDecimal n = new BigDecimal(m.group(1));
      long unit =
          switch (m.group(2)) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
          };
      nanos = nanos.add(n.multiply(BigDecimal.valueOf(unit)));
    }
    if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is longer than the longest duration, 2562047h; write a shorter one");
    }
    return Duration.ofNanos(nanos.longValue());
  }

  /** The shortest Go-style text for a duration, e.g. {@code 1h30m}. */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    StringBuilder b = new StringBuilder();
    long h = d.toHours();
    int m = d.toMinutesPart();
    int s = d.toSecondsPart();
    int ms = d.toMillisPart();
    if (h > 0) {
      b.append(h).append('h');
    }
    if (m > 0) {
      b.append(m).append('m');
    }
    if (s > 0) {
      b.append(s).append('s');
    }
    if (ms > 0) {
      b.append(ms).append("ms");
    }
    return b.toString();
  }
}
