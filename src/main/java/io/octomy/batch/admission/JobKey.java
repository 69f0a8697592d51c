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

  /**
   * The namespace's hash multiplied by an odd constant far from 31, plus the name's: the record's
   * own {@code 31 * namespace + name} gives keys such as ns-1/job-40 and ns-2/job-9 the same hash,
   * since names and namespaces that differ in their last characters have nearby hashes, so a map of
   * ten thousand jobs in thirty namespaces would probe long runs of equal hashes.
   */
  @Override
  public int hashCode() {
    return namespace.hashCode() * 0x9E3779B9 + name.hashCode();
  }

  /** {@code namespace/name}, as kubectl prints it. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
