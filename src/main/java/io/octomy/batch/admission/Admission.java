package io.octomy.batch.admission;

/** One admission made by a pass, in the order the pass made it. */
public record Admission(JobKey job, String node, long effectivePriority, boolean starving) {}
