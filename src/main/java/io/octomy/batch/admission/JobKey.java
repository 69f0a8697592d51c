package io.octomy.batch.admission;

import java.util.Objects;

/** Identifies a BatchJob: its namespace and name. Ordered by namespace, then name. */
public record JobKey(String namespace, String name) implements Comparable<JobKey> {

  public JobKey {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  @Override
  public int compareTo(JobKey other) {
    int c = namespace.compareTo(other.namespace);
    return c != 0 ? c : name.compareTo(other.name);
  }

  /** {@code namespace/name}, as kubectl prints it. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
