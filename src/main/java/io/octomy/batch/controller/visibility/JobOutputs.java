package io.octomy.batch.controller.visibility;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the output of a job run as a local process is kept, for the machine this controller runs on
 * (standalone mode). A controller on a cluster has none: job output stays on its node.
 */
public interface JobOutputs {

  /**
   * The output file of run {@code run} (from 1) of a job run on {@code node}, of its gang replica
   * {@code replica} (0 for a job of one replica), when that file is on this machine.
   */
  Optional<Path> file(String node, String namespace, String name, String uid, int run, int replica);

  /** None on this machine. */
  JobOutputs NONE = (node, namespace, name, uid, run, replica) -> Optional.empty();
}
