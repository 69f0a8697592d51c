package io.octomy.batch.controller;

/** A Kubernetes Event to record on a job: emitted on a transition, never on every pass. */
public record JobEvent(String type, String reason, String message) {
  public static JobEvent normal(String reason, String message) {
    return new JobEvent("Normal", reason, message);
  }

  public static JobEvent warning(String reason, String message) {
    return new JobEvent("Warning", reason, message);
  }
}
