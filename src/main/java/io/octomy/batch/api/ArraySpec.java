package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * An array job: {@code count} items, each a BatchJob of its own named NAME-0 to NAME-(count-1),
 * made from this job's spec and owned by it; at most {@code maxRunning} of them unfinished at once.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ArraySpec {

  /** The most items one array may have: each is an object of its own. */
  public static final int MAX_COUNT = 10_000;

  /** The number of items, from 1 to 10000. */
  @Required
  @Min(1)
  @Max(MAX_COUNT)
  private Integer count;

  /**
   * The most items created and not yet finished at once, from 1; without it items are created as
   * fast as the controller paces them.
   */
  @Min(1)
  @Max(MAX_COUNT)
  private Integer maxRunning;

  public ArraySpec() {}

  public ArraySpec(Integer count, Integer maxRunning) {
    this.count = count;
    this.maxRunning = maxRunning;
  }

  public Integer getCount() {
    return count;
  }

  public void setCount(Integer count) {
    this.count = count;
  }

  public Integer getMaxRunning() {
    return maxRunning;
  }

  public void setMaxRunning(Integer maxRunning) {
    this.maxRunning = maxRunning;
  }

  @Override
  public boolean equals(Object o) {
    return StatusFields.of(ArraySpec.class).equal(this, o);
  }

  @Override
  public int hashCode() {
    return StatusFields.of(ArraySpec.class).hash(this);
  }
}
