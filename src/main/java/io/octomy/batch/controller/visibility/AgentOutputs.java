package io.octomy.batch.controller.visibility;

/**
 * Reads a job's output that is not on this machine from the agent of the node that keeps it. On a
 * cluster, {@link AgentOutputFetch}; in standalone mode, {@link #NONE}: its controller reads its
 * own node's files and no other.
 */
public interface AgentOutputs {

  /** One run's output file on a node: the job, its run (from 1) and its gang replica (from 0). */
  record OutputRun(String namespace, String name, String uid, int run, int replica) {}

  /**
   * The output of {@code run} kept on {@code node}, as {@code kubectl logs} would cut it.
   *
   * @throws VisibilityException saying why it cannot be read, and what to check
   */
  byte[] read(String node, OutputRun run, Long tailLines, Long limitBytes);

  /** Reads nothing from other nodes: says where the output is. */
  AgentOutputs NONE =
      (node, run, tailLines, limitBytes) -> {
        throw VisibilityException.notFound(
            "the output of batchjob "
                + run.name()
                + " is kept on node "
                + node
                + ", not where this controller runs: on a Pod node, kubectl logs -n "
                + run.namespace()
                + " "
                + run.name()
                + "; on a Process node, the file named in its Started event (kubectl describe bj "
                + run.name()
                + ").");
      };
}
