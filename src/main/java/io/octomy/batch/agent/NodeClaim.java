package io.octomy.batch.agent;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.vocabulary.CannotStart;
import io.octomy.batch.vocabulary.Times;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Which agent reports for a BatchNode. Two agents given the same {@code --node} would each start
 * the jobs admitted there: the node's {@code status.agent} names the one that does, by an id kept
 * in its state directory (so the same agent restarted, which re-adopts its jobs, is the same
 * claimant). Another agent refuses to start while the claimant's reports are fresh; once they have
 * stopped for {@link #freshFor} it takes the node over. The claim is a status write conditional on
 * the node's resourceVersion that also stamps the heartbeat, so of two agents starting at once one
 * wins and the other, reading again, finds a fresh claim and refuses.
 */
final class NodeClaim {

  private static final String ID_FILE = "agent-id";

  private NodeClaim() {}

  /** This agent's id: read from {@code stateDir/agent-id}, made there once. */
  static String idOf(Path stateDir) {
    Path file = stateDir.resolve(ID_FILE);
    try {
      Files.createDirectories(stateDir);
      if (!Files.exists(file)) {
        Path fresh = Files.createTempFile(stateDir, ID_FILE, ".new");
        Files.writeString(fresh, UUID.randomUUID().toString());
        try {
          // a link, not a move: of two agents making it at once, the first one's id stays
          Files.createLink(file, fresh);
        } catch (FileAlreadyExistsException other) {
          // made meanwhile: that one is the id
        } finally {
          Files.deleteIfExists(fresh);
        }
      }
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the agent's id in " + file, e);
    }
  }

  /** How long a claimant's last report keeps its claim: three missed reports. */
  static Duration freshFor(Duration reportInterval) {
    return reportInterval.multipliedBy(3);
  }

  /**
   * Claims {@code nodeName} for {@code id}.
   *
   * @throws CannotStart when another agent claims it and reported within {@code freshFor}
   */
  static void claim(
      KubernetesClient client, String nodeName, String id, Duration freshFor, Instant now) {
    for (int attempt = 0; attempt < 5; attempt++) {
      BatchNode node = client.resources(BatchNode.class).withName(nodeName).get();
      if (node == null) {
        return; // deleted meanwhile: the agent creates it again with its first report
      }
      BatchNodeStatus status = node.getStatus() == null ? new BatchNodeStatus() : node.getStatus();
      String holder = status.getAgent();
      if (id.equals(holder)) {
        return;
      }
      Instant lastReport = Times.parse(status.getHeartbeatTime());
      if (holder != null && lastReport != null && now.isBefore(lastReport.plus(freshFor))) {
        throw new CannotStart(
            "node "
                + nodeName
                + " is reported by another agent (id "
                + holder
                + ", last report at "
                + Times.format(lastReport)
                + "); two agents on one node would start its jobs twice. Stop that agent, or give"
                + " this one another --node; a stopped agent's claim lapses "
                + freshFor.toSeconds()
                + " s after its last report",
            null);
      }
      status.setAgent(id);
      status.setHeartbeatTime(Times.format(now));
      node.setStatus(status);
      try {
        // a PUT of the status carrying the version read: 409 if anyone wrote the node since
        client.resources(BatchNode.class).resource(node).updateStatus();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
          throw e;
        }
        // changed since read (a report, or another agent's claim): read again
      }
    }
    throw new IllegalStateException("node " + nodeName + " changed under five claims in a row");
  }
}
