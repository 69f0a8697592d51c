package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.NodeMode;
import java.util.ArrayList;
import java.util.List;

/** What one job's decision must be; only the parts that are set are checked. */
final class Expected {

  private final Class<? extends Decision> kind;
  private final Reason reason;
  private String node;
  private String ancestor;
  private String message;
  private final List<String> fragments = new ArrayList<>();
  private List<WaitingOn> waitingOn;
  private Long priority;
  private Boolean starving;
  private String starvation;
  private List<String> replicaNodes;
  private NodeMode mode;

  private Expected(Class<? extends Decision> kind, Reason reason) {
    this.kind = kind;
    this.reason = reason;
  }

  static Expected admitted(String node) {
    Expected e = new Expected(Decision.Admit.class, Reason.Admitted);
    e.node = node;
    return e;
  }

  /** A gang admitted whole: each replica's node, in replica order. */
  static Expected gangAdmitted(String... nodes) {
    Expected e = admitted(nodes[0]);
    e.replicaNodes = List.of(nodes);
    return e;
  }

  static Expected waits(Reason reason) {
    return new Expected(Decision.Wait.class, reason);
  }

  static Expected skipped(String ancestor) {
    Expected e = new Expected(Decision.Skip.class, Reason.DependencyFailed);
    e.ancestor = ancestor;
    return e;
  }

  static Expected rejected(Reason reason) {
    return new Expected(Decision.Reject.class, reason);
  }

  Reason reason() {
    return reason;
  }

  /** The exact message. */
  Expected message(String exact) {
    message = exact;
    return this;
  }

  /** Parts the message must contain. */
  Expected mentions(String... parts) {
    fragments.addAll(List.of(parts));
    return this;
  }

  /** The exact waitingOn list, as key/job pairs. */
  Expected on(String... keyJobPairs) {
    waitingOn = new ArrayList<>();
    for (int i = 0; i < keyJobPairs.length; i += 2) {
      waitingOn.add(new WaitingOn(keyJobPairs[i], keyJobPairs[i + 1]));
    }
    return this;
  }

  /** The mode an admission records. */
  Expected mode(NodeMode value) {
    mode = value;
    return this;
  }

  Expected priority(long value) {
    priority = value;
    return this;
  }

  Expected starving(boolean value) {
    starving = value;
    return this;
  }

  /** The exact Starving note: what is held back for the job, or why nothing can be. */
  Expected starvation(String note) {
    starving = true;
    starvation = note;
    return this;
  }

  void check(String job, Decision actual) {
    assertThat(actual).as("decision of %s", job).isNotNull().isInstanceOf(kind);
    assertThat(actual.reason()).as("reason of %s (%s)", job, actual).isEqualTo(reason);
    assertThat(actual.message()).as("message of %s", job).isNotBlank();
    assertThat(actual.phase()).as("phase of %s", job).isNotNull();
    if (node != null) {
      assertThat(((Decision.Admit) actual).node()).as("node of %s", job).isEqualTo(node);
    }
    if (replicaNodes != null) {
      assertThat(((Decision.Admit) actual).replicaNodes())
          .as("replica nodes of %s", job)
          .isEqualTo(replicaNodes);
    } else if (actual instanceof Decision.Admit a) {
      assertThat(a.replicaNodes()).as("replica nodes of single job %s", job).isEmpty();
    }
    if (mode != null) {
      assertThat(((Decision.Admit) actual).mode()).as("mode of %s", job).isEqualTo(mode);
    }
    if (ancestor != null) {
      assertThat(((Decision.Skip) actual).failedAncestor())
          .as("ancestor of %s", job)
          .isEqualTo(ancestor);
    }
    if (message != null) {
      assertThat(actual.message()).as("message of %s", job).isEqualTo(message);
    }
    for (String part : fragments) {
      assertThat(actual.message()).as("message of %s", job).contains(part);
    }
    if (waitingOn != null) {
      assertThat(actual.waitingOn()).as("waitingOn of %s", job).isEqualTo(waitingOn);
    }
    if (priority != null) {
      long actualPriority =
          actual instanceof Decision.Admit a
              ? a.effectivePriority()
              : ((Decision.Wait) actual).effectivePriority();
      assertThat(actualPriority).as("effective priority of %s", job).isEqualTo(priority);
    }
    if (starving != null) {
      assertThat(actual.starving()).as("starving of %s", job).isEqualTo(starving);
    }
    if (starvation != null) {
      assertThat(((Decision.Wait) actual).starvation())
          .as("starving note of %s", job)
          .isEqualTo(starvation);
    }
  }
}
