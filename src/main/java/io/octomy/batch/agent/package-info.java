/**
 * The node agent's machine-facing parts, in plain Java types so the Kubernetes reporter can be
 * wired on top: host probing and capacity ({@link io.octomy.batch.agent.HostProbe}, {@link
 * io.octomy.batch.agent.CgroupBounds}, {@link io.octomy.batch.agent.NodeCapacity}), mode-scaled
 * offers ({@link io.octomy.batch.agent.NodeOffer}), per-job usage meters ({@link
 * io.octomy.batch.agent.ProcessTreeMeter}, {@link io.octomy.batch.agent.CgroupPodMeter}) and the
 * local process executor ({@link io.octomy.batch.agent.ProcessExecutor}).
 */
package io.octomy.batch.agent;
