/**
 * The pure admission engine: {@link io.octomy.batch.admission.AdmissionPass#decide} turns an
 * immutable {@link io.octomy.batch.admission.Snapshot} into an {@link
 * io.octomy.batch.admission.AdmissionResult}. Nothing here talks to Kubernetes or reads a clock;
 * the controller builds the snapshot, decides, and writes the statuses.
 *
 * <h2>Choices docs/rules.md leaves open</h2>
 *
 * <ul>
 *   <li><b>Who gets a decision.</b> Only Queued jobs. Admitted and Running jobs hold their requests
 *       on their node, their locks, their group slot and their namespace budget (a job whose node
 *       is not in the snapshot still holds the last three); finished jobs only count for
 *       dependencies.
 *   <li><b>Spec problems first.</b> A Queued job with {@code specProblems} (or a negative quantity,
 *       which the pass checks itself) is rejected InvalidSpec before anything else.
 *   <li><b>Held.</b> A Queued job with {@code suspend} is decided Held right after the spec check:
 *       no other gate is looked at, it reserves and counts nothing, it is never starving (so never
 *       protected), and the forecast never starts it. It keeps its place in the pass order (its
 *       priority ages from queuedAt), so once released it is decided where it would have been. Its
 *       dependants wait for it; a dependant whose chain has failed is skipped, naming the failed
 *       ancestor, even through a held job.
 *   <li><b>Node selectors.</b> A node is eligible for a job only when its labels hold every pair of
 *       the job's {@code nodeSelector}; every capacity check (fit now, fit the full offer, the node
 *       where a starving job fits soonest, the sentences) reads the eligible nodes only. A job with
 *       a selector is placed by the same best-fit rule (its dominant resource measured over all
 *       eligible-for-others nodes, as without one) by looking at every node, since the free-space
 *       indexes and the memos by request shape know nothing of labels.
 *   <li><b>Dependencies.</b> Ancestors that fail in this very pass (InvalidSpec, a cycle, a skip
 *       found here) skip their dependants in the same pass. With several failed ancestors the first
 *       by name is named. A dependency admitted in this pass is still waited for (it must succeed).
 *       {@code waitingOn} lists each dependency not yet succeeded, key {@code "after"}.
 *   <li><b>Groups are namespace-scoped</b>, like locks: {@code simulator} in namespace a and in
 *       namespace b are two groups. {@code waitingOn} lists the holders with the group as key.
 *   <li><b>Ready</b> means the agent's Ready flag and a heartbeat strictly newer than now minus
 *       {@code nodeHeartbeatTimeout}.
 *   <li><b>Off accepts nothing</b>, not even a job that requests nothing. A node whose {@code mode}
 *       is Off but whose {@code ownMode} is not still runs its own work.
 *   <li><b>A request of 0 constrains nothing</b>, so it fits even where allocation is above the
 *       offer after a mode change; a job requesting nothing fits every ready node not Off for it.
 *   <li><b>Placement.</b> The job's origin node first when it fits there (with ownMode's offer).
 *       Otherwise best fit: the node with the least free amount of the job's dominant resource (the
 *       request that is the largest share of all eligible nodes' total offer of it) that still
 *       holds every request; ties to the first node name. A job requesting nothing goes to the
 *       eligible node with the fewest admitted and running jobs, ties by name.
 *   <li><b>Gangs.</b> A job of {@code replicas} N above 1 is placed whole or not at all by {@link
 *       io.octomy.batch.admission.GangPlacement}: replica by replica by the placement rule above,
 *       as if the replicas before it were reserved (origin first while it has room, then best fit,
 *       filling a node before the next). Nothing is reserved until every replica has a node. It
 *       counts N times its requests on the pool (each replica on its node), its budget and its
 *       queues; it takes one group slot and its locks once. NoNodeFits when the eligible nodes'
 *       full offers hold fewer than N copies together. A starving gang keeps the nodes where its
 *       replicas fit soonest, as many as their full offers need. An Admitted or Running gang counts
 *       a replica on each node of its view's {@code replicaNodes}.
 *   <li><b>Starvation hold.</b> The first starving job in pass order that waits for capacity (not
 *       NoNodeFits: holding cannot help it) picks the node where it would fit soonest: among ready
 *       nodes whose full offer holds it, the smallest largest-shortfall, where a shortfall is
 *       (allocated + request - offer) as a share of the offer; ties by name. For the rest of the
 *       pass, lower-priority jobs that request any resource the starving job requests are not
 *       admitted there; those that fit nowhere else wait with HeldForStarvingJob. Nor does a
 *       lower-priority job of its namespace take one of its locks, the last free slot of its group,
 *       or budget it would then lack (HeldForStarvingJob too): otherwise its wait would turn into a
 *       lock, group or budget wait and the hold would lapse on the next pass. One hold per pass.
 *   <li><b>Queues.</b> A job is in the BatchQueue that claims its namespace, or in the implicit
 *       default queue (weight 1, at the top of the tree, no max) when none does. After its
 *       namespace budget, a job waits QueueConflict when two queues claim its namespace, QueueCycle
 *       when its queue is in or below a cycle of parents, and WaitingForQueueMax when its requests
 *       would take its queue, or a queue above it, over its max (what admitted and running jobs of
 *       the subtree hold, plus each admission of the pass). A parent that names no queue counts as
 *       none. A holder in a namespace two queues claim counts in no queue. The starvation hold does
 *       not protect a job waiting at a queue gate.
 *   <li><b>A queue's min.</b> While a queue (with its subtree) holds less than its min of a
 *       resource, counted only up to what the ready nodes offer now, and has a Queued job that
 *       requests it and passes every gate before capacity, the first such job in pass order is its
 *       head and a node is kept for it: where it fits now, else where it would fit soonest. Jobs of
 *       other queues, whatever their priority, may not take what the head needs there; those that
 *       fit nowhere else wait HeldForQueueMinimum. The heads of other reclaiming queues are not
 *       held, so mins above the pool together never stop every queue. {@link
 *       io.octomy.batch.admission.QueueMinimumHolds} has the rest.
 *   <li><b>Fair share.</b> With any BatchQueue in the snapshot, each Queued job's effective
 *       priority gains its queue's term from {@link io.octomy.batch.admission.FairShare}: from what
 *       the queues hold now and their decayed past usage ({@link
 *       io.octomy.batch.admission.QueueView#pastUsage}), up to {@code fairShareWeight}. Without a
 *       queue the term is 0 for everyone. A forecast keeps each queue's term as the snapshot made
 *       it.
 *   <li><b>Arithmetic.</b> Whole numbers only (but the fair-share term, a rounded double); sums
 *       saturate at {@code Long.MAX_VALUE} (which can only make a job not fit), fractions are
 *       compared by exact 128-bit cross products.
 * </ul>
 */
package io.octomy.batch.admission;
