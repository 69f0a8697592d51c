package io.octomy.batch.admission;

/**
 * All a forecast ({@link FuturePasses}) asks of the pass whose state it carries on: the state to
 * release ended jobs in and start each simulated pass at its time ({@link PassState#startPass}),
 * decisions without sentences, and the pass's own rules for a job whose dependencies have ended.
 * Nothing is decided here that the pass would decide otherwise.
 */
interface SimulatedPass {

  /** The pass's state, as its next pass left it and each simulated pass changes it. */
  PassState state();

  /** From now on decisions carry no sentences: the simulated passes' are never shown. */
  void withoutSentences();

  /** Decides a job whose dependencies have all succeeded, by the pass's rules. */
  Decision decideReady(PreparedJob job);
}
