package io.octomy.batch.vocabulary;

/** How much of itself a node offers to batch work; each mode is a row of the {@link ModeTable}. */
public enum NodeMode {
  /** Someone is using this machine right now. */
  Interactive,
  /** An idle desktop that still belongs to a person. */
  Background,
  /** A machine that exists to run jobs. */
  Drone,
  /** Accepts nothing. */
  Off
}
