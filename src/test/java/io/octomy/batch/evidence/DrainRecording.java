package io.octomy.batch.evidence;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

/**
 * The JFR samples of one measured stretch: with {@code --jfr-drain FILE} and a JVM started with
 * {@code -XX:StartFlightRecording}, writes what has been recorded so far to FILE at the stretch's
 * end and prints the stretch's first and last instant, to read only its samples. A recording
 * started in the running JVM instead made the drain run a quarter as fast, mostly in the compiler.
 */
final class DrainRecording {
  private final Path file;
  private final Instant begin;

  private DrainRecording(Path file, Instant begin) {
    this.file = file;
    this.begin = begin;
  }

  static DrainRecording start(String file) {
    if (!file.isEmpty() && FlightRecorder.getFlightRecorder().getRecordings().isEmpty()) {
      throw new IllegalStateException(
          "--jfr-drain needs a JVM started with -XX:StartFlightRecording (settings=profile)");
    }
    return new DrainRecording(file.isEmpty() ? null : Path.of(file), Instant.now());
  }

  void stop() throws IOException {
    if (file == null) {
      return;
    }
    Instant end = Instant.now();
    try (Recording snapshot = FlightRecorder.getFlightRecorder().takeSnapshot()) {
      snapshot.dump(file);
    }
    System.out.printf("JFR recording: %s, the drain from %s to %s%n", file, begin, end);
  }
}
