package io.octomy.batch.vocabulary;

/**
 * A concurrency group ("product"): at most {@code maxRunning} of its jobs are admitted or running
 * at once.
 */
public record GroupPolicy(int maxRunning) {

  /** A group the policy does not list runs one job at a time. */
  public static final GroupPolicy DEFAULT = new GroupPolicy(1);
}
