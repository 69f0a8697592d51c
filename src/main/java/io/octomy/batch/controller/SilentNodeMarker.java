package io.octomy.batch.controller;

import io.octomy.batch.api.BatchNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node liveness, the last job of a pass: says so on nodes whose agent went silent (admission
 * already passes them over), by setting Ready=Unknown once, conditional on the version read.
 */
final class SilentNodeMarker {

  private static final Logger LOG = LoggerFactory.getLogger(SilentNodeMarker.class);

  /**
   * What marking did.
   *
   * @param marked nodes marked Ready=Unknown in this pass
   * @param refused marks refused or failed; a conflict means the agent just reported, so its status
   *     stands and the next pass looks again
   */
  record Marked(int marked, int refused) {}

  private final ClusterWriter writer;
  private final Duration heartbeatTimeout;

  SilentNodeMarker(ClusterWriter writer, Duration heartbeatTimeout) {
    this.writer = writer;
    this.heartbeatTimeout = heartbeatTimeout;
  }

  Marked mark(List<BatchNode> nodes, Instant now) {
    int marked = 0;
    int refused = 0;
    for (BatchNode node : nodes) {
      var conditions = NodeLiveness.markedNotReporting(node, now, heartbeatTimeout);
      if (conditions.isEmpty()) {
        continue;
      }
      if (writer.writeNodeConditions(node, conditions.get()) == ClusterWriter.Result.WRITTEN) {
        marked++;
        LOG.info(
            "node {}: agent not reporting, marked Ready=Unknown", node.getMetadata().getName());
      } else {
        refused++;
      }
    }
    return new Marked(marked, refused);
  }
}
