package io.octomy.batch.admission;

import java.util.Comparator;
import java.util.Objects;

/** Identifies a BatchJob: its namespace and name. Ordered by namespace, then name. */
public record JobKey(String namespace, String name) implements Comparable<JobKey> {

  private static final Comparator<JobKey> ORDER =
      Comparator.comparing(JobKey::namespace).thenComparing(JobKey::name);

  public JobKey {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  @Override
  public int compareTo(JobKey other) {
    return ORDER.compare(this, other);
  }

  /** {@code namespace/name}, as kubectl prints it. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
