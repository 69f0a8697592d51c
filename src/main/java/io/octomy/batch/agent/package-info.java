/**
 * The node agent. {@link io.octomy.batch.agent.NodeAgent} is the Kubernetes side: it creates the
 * machine's BatchNode when missing, writes its status (composed by the pure {@link
 * io.octomy.batch.agent.NodeStatusComposer}) at a steady interval and on spec changes, and follows
 * the BatchJobs placed on the node. Under it sit the machine-facing parts, in plain Java types:
 * host probing and capacity ({@link io.octomy.batch.agent.HostProbe}, {@link
 * io.octomy.batch.agent.CgroupBounds}, {@link io.octomy.batch.agent.NodeCapacity}), mode-scaled
 * offers ({@link io.octomy.batch.agent.NodeOffer}), per-job usage meters ({@link
 * io.octomy.batch.agent.ProcessTreeMeter}, {@link io.octomy.batch.agent.CgroupPodMeter}) and the
 * local process executor ({@link io.octomy.batch.agent.ProcessExecutor}).
 */
package io.octomy.batch.agent;
