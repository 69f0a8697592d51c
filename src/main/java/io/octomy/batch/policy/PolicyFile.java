package io.octomy.batch.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.octomy.batch.vocabulary.ModeTable;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import io.octomy.batch.vocabulary.PriorityPolicy;
import io.octomy.batch.vocabulary.Quantities;
import io.octomy.batch.vocabulary.ResourceNames;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;

/**
 * The policy file exactly as written: every key optional, typed strictly so that Jackson reports a
 * wrong value with its line and path. {@link PolicyLoader} turns it into a {@link Policy}.
 */
final class PolicyFile {
  // Plain fields, not a record: a record is built through a creator, for which Jackson buffers
  // the input and loses the line numbers that error messages need.
  public Map<NodeMode, Map<RowKey, Percent>> modes;
  public PriorityFile priority;
  public Map<Label, GroupFile> groups;
  public Map<Label, Map<ResourceName, Quantity>> budgets;
  public Timeout nodeHeartbeatTimeout;
  public Timeout retryBackoff;
  public GoText finishedJobTTL;
  public FairShareFile fairShare;

  static final class FairShareFile {
    public Timeout usageHalfLife;
  }

  static final class PriorityFile {
    public PriorityNumber guaranteed;
    public PriorityNumber burstable;
    public PriorityNumber bestEffort;
    public PriorityNumber agingPerMinute;
    public PriorityNumber agingCeiling;
    public GoText starvationAfter;
    public PriorityNumber fairShareWeight;
  }

  static final class GroupFile {
    public Cap maxRunning;
  }

  /** A whole percentage from 0 to 100. */
  record Percent(int value) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Percent of(int value) {
      if (value < 0 || value > 100) {
        throw new IllegalArgumentException(
            value + " is not a percentage; write a whole number from 0 to 100");
      }
      return new Percent(value);
    }
  }

  /** A whole number >= 0. */
  record Quantity(long value) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Quantity of(Number number) {
      return new Quantity(wholeNumber(number, Quantities.MAX, "quantity"));
    }
  }

  /** A class base or aging number: bounded so that a base plus the ceiling cannot overflow. */
  record PriorityNumber(long value) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static PriorityNumber of(Number number) {
      return new PriorityNumber(wholeNumber(number, PriorityPolicy.MAX, "priority number"));
    }
  }

  /** A whole number from 0 to {@code max}, or a sentence saying what to write. */
  static long wholeNumber(Number number, long max, String what) {
    if (!(number instanceof Integer || number instanceof Long || number instanceof BigInteger)) {
      throw new IllegalArgumentException(
          number + " is a fraction; write a whole number (use a smaller unit, like cpu-milli)");
    }
    BigInteger value = number instanceof BigInteger b ? b : BigInteger.valueOf(number.longValue());
    if (value.signum() < 0) {
      throw new IllegalArgumentException(value + " is negative; write a whole number >= 0");
    }
    if (value.compareTo(BigInteger.valueOf(max)) > 0) {
      throw new IllegalArgumentException(
          value + " is too large; a " + what + " is a whole number from 0 to " + max);
    }
    return value.longValue();
  }

  /** A positive Go-style duration (a timeout of 0 would never let a node count as ready). */
  record Timeout(Duration value) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Timeout of(String text) {
      Duration d = GoDuration.parse(text);
      if (d.isZero()) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a positive duration; write one like 60s");
      }
      return new Timeout(d);
    }
  }

  /** A group cap: at least one job must be able to run. */
  record Cap(int value) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static Cap of(int value) {
      if (value < 1) {
        throw new IllegalArgumentException(
            "maxRunning is "
                + value
                + "; write 1 or more (a group that may never run is an Off node's job, not a group's)");
      }
      return new Cap(value);
    }
  }

  /** A Go-style duration. */
  record GoText(Duration value) {
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    static GoText of(String text) {
      return new GoText(GoDuration.parse(text));
    }
  }

  /** A resource name or "*" (a mode row key). */
  record RowKey(@JsonValue String value) {
    @JsonCreator
    static RowKey of(String value) {
      if (!ModeTable.ANY.equals(value) && !ResourceNames.isValid(value)) {
        throw new IllegalArgumentException(
            nameProblem(value) + " (or \"*\" for every name not listed)");
      }
      return new RowKey(value);
    }
  }

  /** A domain-qualified resource name. */
  record ResourceName(@JsonValue String value) {
    @JsonCreator
    static ResourceName of(String value) {
      if (!ResourceNames.isValid(value)) {
        throw new IllegalArgumentException(nameProblem(value));
      }
      return new ResourceName(value);
    }
  }

  /** A namespace or group name (DNS label). */
  record Label(@JsonValue String value) {
    @JsonCreator
    static Label of(String value) {
      if (value.length() > 63 || !value.matches(ResourceNames.DNS_LABEL_REGEX)) {
        throw new IllegalArgumentException(
            "'" + value + "' is not a valid name; use lower-case letters, digits and '-'");
      }
      return new Label(value);
    }
  }

  static String nameProblem(String value) {
    return ResourceNames.problem(value);
  }
}
