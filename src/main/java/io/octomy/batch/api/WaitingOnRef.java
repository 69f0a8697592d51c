package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/** One lock a waiting job needs and the job that holds it now. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WaitingOnRef {

  /** The lock key, like subject/ernie. */
  private String key;

  /** The BatchJob (same namespace) that holds the key. */
  private String job;

  public WaitingOnRef() {}

  public WaitingOnRef(String key, String job) {
    this.key = key;
    this.job = job;
  }

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getJob() {
    return job;
  }

  public void setJob(String job) {
    this.job = job;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WaitingOnRef w && Objects.equals(key, w.key) && Objects.equals(job, w.job);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, job);
  }
}
