package io.octomy.batch.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.octomy.batch.agent.JobOutputServer;
import io.octomy.batch.agent.KubernetesOutputReviews;
import io.octomy.batch.agent.NodeAgent;
import io.octomy.batch.agent.OutputAccess;
import io.octomy.batch.api.LogEndpoint;
import io.octomy.batch.tls.SelfSignedCertificate;
import io.octomy.batch.vocabulary.CannotStart;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Process agent's {@link JobOutputServer} with a certificate made at start for the host it
 * publishes, and publishes host, port and certificate in its BatchNode's {@code
 * status.logEndpoint}, as a kubelet publishes its endpoint: nothing to configure, no key stored.
 */
final class JobOutputServing {

  private static final Logger LOG = LoggerFactory.getLogger(JobOutputServing.class);

  /** The port when none is given, for the agent's output as 10250 is for a kubelet's. */
  static final int DEFAULT_PORT = 10271;

  private static final Duration VALIDITY = Duration.ofDays(3650);

  private static final Pattern IP = Pattern.compile("[0-9.]+|.*:.*");

  private JobOutputServing() {}

  /**
   * The running server, or null when turned off ({@code port} -1) or when the default port is taken
   * (said in the log: the agent runs on, and kubectl octomy logs says the node serves no output).
   *
   * @param port null for {@link #DEFAULT_PORT}
   * @throws CannotStart when a port given on purpose cannot be listened on
   */
  static JobOutputServer start(
      KubernetesClient client,
      NodeAgent agent,
      String node,
      Path stateDir,
      String address,
      String host,
      Integer port) {
    int listen = port == null ? DEFAULT_PORT : port;
    if (listen < 0) {
      return null;
    }
    String published = host != null && !host.isBlank() ? host : publishedHost(address);
    SelfSignedCertificate certificate =
        SelfSignedCertificate.create(
            published,
            IP.matcher(published).matches() ? List.of() : List.of(published),
            IP.matcher(published).matches() ? List.of(published) : List.of(),
            VALIDITY);
    JobOutputServer server =
        new JobOutputServer(
            stateDir,
            node,
            new OutputAccess(
                node,
                LogEndpoint.audience(node),
                new KubernetesOutputReviews(client),
                Clock.systemUTC()));
    int bound;
    try {
      bound =
          server.start(address, listen, certificate.certificatePem(), certificate.privateKeyPem());
    } catch (IOException e) {
      server.close();
      String why =
          "cannot listen on "
              + address
              + ":"
              + listen
              + " to serve this node's job output ("
              + e.getMessage()
              + ")";
      if (port != null) {
        throw new CannotStart(
            why + ": give --logs-port a free port, 0 for any, or -1 to serve none.", e);
      }
      LOG.warn(
          "{}; kubectl octomy logs cannot read this node's jobs. Give --logs-port a free port.",
          why);
      return null;
    }
    agent.publishLogEndpoint(new LogEndpoint(published, bound, certificate.certificatePem()));
    LOG.info("serving this node's job output on {}:{} as {}", address, bound, published);
    return server;
  }

  private static String publishedHost(String address) {
    if (!address.equals("0.0.0.0") && !address.equals("::")) {
      return address;
    }
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
