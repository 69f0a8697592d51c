package io.octomy.batch.evidence;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Processor time this JVM has used so far, in seconds, and its just-in-time compiler threads' part.
 * Why: a benchmark that holds the embedded server, the controller and its clients in one JVM can
 * say what each measured step cost per operation, and how much of it was compiling rather than
 * serving, on a machine where every step competes for the same two processors.
 */
record JvmProcessorTime(double seconds, double compilerSeconds) {

  /** Now; the compiler's part would include Java processes this one started (none here). */
  static JvmProcessorTime now() {
    ProcessHandle self = ProcessHandle.current();
    try {
      return new JvmProcessorTime(
          self.info()
                  .totalCpuDuration()
                  .orElseThrow(() -> new IllegalStateException("no processor time for this JVM"))
                  .toNanos()
              / 1e9,
          ProcStatus.compilerCpuSeconds(self.pid()));
    } catch (IOException e) {
      throw new UncheckedIOException("reading this JVM's processor time", e);
    }
  }

  /** "X ms (compiler Y ms)" of processor time per operation since {@code start}. */
  String perOperationSince(JvmProcessorTime start, long operations) {
    double per = 1000.0 / Math.max(1, operations);
    return String.format(
        "%.2f ms (compiler %.2f ms)",
        (seconds - start.seconds) * per, (compilerSeconds - start.compilerSeconds) * per);
  }
}
