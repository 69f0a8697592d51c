package io.octomy.batch.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short fault suite, in {@code mvn verify}: every scenario, small. The full one is {@link
 * FaultSuite}.
 */
class FaultSuiteE2E {

  private static final long SEED = 7;

  @Test
  @Timeout(60)
  void controllerKilledMidRunNeverDoubleBooks() throws Exception {
    assertThat(FaultSuite.run("kill-controller", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  @Test
  @Timeout(60)
  void standaloneKilledMidWriteLosesNothingAcknowledged() throws Exception {
    assertThat(FaultSuite.run("kill-standalone", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  @Test
  @Timeout(45)
  void conflictStormConvergesWithNothingLost() throws Exception {
    assertThat(FaultSuite.run("storm", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  @Test
  @Timeout(60)
  void malformedManifestsAreRefusedOrRejected() throws Exception {
    assertThat(FaultSuite.run("malformed", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  /**
   * A server without schema validation stores wrong-typed fields (e.g. {@code group: [1, 2, 3]});
   * the spec is read leniently, so each such job is Rejected with a message and the rest go on.
   */
  @Test
  @Timeout(90)
  void malformedManifestsBypassingValidationDoNotCrashTheController() throws Exception {
    assertThat(FaultSuite.run("malformed-mock", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  /**
   * Hostile objects on every write path (POST, PUT, each patch type, apply): no 5xx, no request
   * without an answer, and a restart after each batch serves everything acknowledged.
   */
  @Test
  @Timeout(120)
  void hostileWritesOnEveryPathLeaveARestartableState() throws Exception {
    assertThat(FaultSuite.run("hostile-writes", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  /**
   * Idle connections are closed, writes past the in-flight limit get 429, a watch whose client
   * never reads is ended, and the server still answers.
   */
  @Test
  @Timeout(120)
  void exhaustionAttemptsAreBoundedAndTheServerStillAnswers() throws Exception {
    assertThat(FaultSuite.run("exhaustion", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  /**
   * A server in a JVM with a small heap, asked for more at once than it can hold: every request is
   * answered (500 for the ones that ran out of memory) and the same process serves on.
   */
  @Test
  @Timeout(120)
  void outOfMemoryInAWorkerIsAnsweredAndTheServerServesOn() throws Exception {
    assertThat(FaultSuite.run("out-of-memory", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  /**
   * A server whose heap fills with stored objects refuses new ones with 403 saying so, keeps every
   * object it acknowledged, and takes new ones again once deletes have made room.
   */
  @Test
  @Timeout(180)
  void aFullHeapRefusesNewObjectsAndKeepsServing() throws Exception {
    assertThat(FaultSuite.run("heap-full", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }

  @Test
  @Timeout(45)
  void silentAgentsNodeTakesNoNewJobs() throws Exception {
    assertThat(FaultSuite.run("silent-agent", FaultSuite.Sizes.quick(), SEED)).isTrue();
  }
}
