package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;

/** How the items of an array job stand, counted by the controller on each change. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ArrayStatus {

  /** Items succeeded of all, like 3/10: the ITEMS column. */
  private String items;

  /** Items created so far (NAME-0 up to NAME-(created-1)). */
  private Integer created;

  /** Items queued: waiting for admission, held or backing off. */
  private Integer queued;

  /** Items admitted or running. */
  private Integer running;

  /** Items that succeeded. */
  private Integer succeeded;

  /** Items that failed past their retries. */
  private Integer failed;

  public String getItems() {
    return items;
  }

  public void setItems(String items) {
    this.items = items;
  }

  public Integer getCreated() {
    return created;
  }

  public void setCreated(Integer created) {
    this.created = created;
  }

  public Integer getQueued() {
    return queued;
  }

  public void setQueued(Integer queued) {
    this.queued = queued;
  }

  public Integer getRunning() {
    return running;
  }

  public void setRunning(Integer running) {
    this.running = running;
  }

  public Integer getSucceeded() {
    return succeeded;
  }

  public void setSucceeded(Integer succeeded) {
    this.succeeded = succeeded;
  }

  public Integer getFailed() {
    return failed;
  }

  public void setFailed(Integer failed) {
    this.failed = failed;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(ArrayStatus.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(ArrayStatus.class).hash(this);
  }
}
