package io.octomy.batch.visibility;

import java.util.Objects;

/**
 * One thing that stands between a Queued job and its admission, with what would change it.
 *
 * @param reason the reason code the pass gives when this is the first blocker (e.g. {@code
 *     WaitingForLock})
 * @param message what stands in the way, as a sentence with the numbers
 * @param remedy what would clear it: what to change, or when it is expected to clear by itself
 */
public record Blocker(String reason, String message, String remedy) {
  public Blocker {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(remedy, "remedy");
  }
}
