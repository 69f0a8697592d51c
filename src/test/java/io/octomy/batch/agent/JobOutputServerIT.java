package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.LogEndpoint;
import io.octomy.batch.controller.visibility.AgentOutputFetch;
import io.octomy.batch.controller.visibility.AgentOutputs;
import io.octomy.batch.controller.visibility.VisibilityException;
import io.octomy.batch.output.JobOutputText;
import io.octomy.batch.tls.SelfSignedCertificate;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent's output server on 127.0.0.1 and the controller's side reading from it, over real HTTPS
 * with the certificate pinned as the BatchNode publishes it: the run's last lines are served to the
 * caller the reviews let in, a caller without a token or with a refused one gets 401, one without
 * the permission 403, and no answer is larger than the output's last 16 MiB.
 */
class JobOutputServerIT {

  private static final String NODE = "ws-7";
  private static final RunKey RUN = new RunKey("team-a", "solve", "uid-1", 2, 0);
  private static final String CONTROLLER = "system:serviceaccount:octomy-system:controller";

  @TempDir Path state;

  /** Tokens the fake API server accepts for this node's audience, and the user each names. */
  private final Map<String, String> tokens =
      Map.of("controller-token", CONTROLLER, "alice-token", "alice");

  private final List<String> audiences = new ArrayList<>();
  private JobOutputServer server;
  private LogEndpoint endpoint;

  @BeforeEach
  void serve() throws Exception {
    OutputAccess.OutputReviewer reviews =
        new OutputAccess.OutputReviewer() {
          @Override
          public Optional<OutputAccess.ReviewedUser> authenticate(String token, String audience) {
            audiences.add(audience);
            return Optional.ofNullable(tokens.get(token))
                .map(u -> new OutputAccess.ReviewedUser(u, "", List.of(), Map.of()));
          }

          @Override
          public boolean mayReadOutput(OutputAccess.ReviewedUser user, String node) {
            return user.name().equals(CONTROLLER) && node.equals(NODE);
          }
        };
    SelfSignedCertificate cert =
        SelfSignedCertificate.create(
            "127.0.0.1", List.of(), List.of("127.0.0.1"), Duration.ofDays(1));
    server =
        new JobOutputServer(
            state,
            NODE,
            new OutputAccess(NODE, LogEndpoint.audience(NODE), reviews, Clock.systemUTC()));
    int port = server.start("127.0.0.1", 0, cert.certificatePem(), cert.privateKeyPem());
    endpoint = new LogEndpoint("127.0.0.1", port, cert.certificatePem());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void theControllerReadsARunsLastLines() throws Exception {
    write("one\ntwo\nthree\n".getBytes(StandardCharsets.UTF_8));
    byte[] tail = fetch("controller-token").read(NODE, run(), 2L, null);
    assertThat(new String(tail, StandardCharsets.UTF_8)).isEqualTo("two\nthree\n");
    byte[] cut = fetch("controller-token").read(NODE, run(), null, 5L);
    assertThat(new String(cut, StandardCharsets.UTF_8)).isEqualTo("one\nt");
    assertThat(audiences).containsOnly(LogEndpoint.audience(NODE));
  }

  @Test
  void anOutputOver16MiBIsAnsweredAsItsLast16MiB() throws Exception {
    byte[] big = new byte[(int) JobOutputText.MAX_BYTES + 1000];
    big[1000] = 'x'; // the first byte of the last 16 MiB
    write(big);
    byte[] read = fetch("controller-token").read(NODE, run(), null, null);
    assertThat(read).hasSize((int) JobOutputText.MAX_BYTES);
    assertThat(read[0]).isEqualTo((byte) 'x');
  }

  @Test
  void aCallerWithoutATokenOrWithARefusedOneGets401() throws Exception {
    write("secret\n".getBytes(StandardCharsets.UTF_8));
    assertThat(direct(null).statusCode()).isEqualTo(401);
    HttpResponse<String> forged = direct("Bearer forged");
    assertThat(forged.statusCode()).isEqualTo(401);
    assertThat(forged.body()).doesNotContain("secret");
  }

  @Test
  void aKnownUserWithoutThePermissionGets403AndTheControllerSaysWhatToGrant() throws Exception {
    write("secret\n".getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> alice = direct("Bearer alice-token");
    assertThat(alice.statusCode()).isEqualTo(403);
    assertThat(alice.body()).doesNotContain("secret").contains("batchnodes/log " + NODE);
    assertThatThrownBy(() -> fetch("alice-token").read(NODE, run(), null, null))
        .isInstanceOf(VisibilityException.class)
        .hasMessageContaining("node " + NODE + "'s agent at " + where() + " refused")
        .hasMessageContaining("get on batchnodes/log");
  }

  @Test
  void aRunTheNodeKeepsNoOutputOfIsNotFound() {
    VisibilityException e =
        (VisibilityException)
            org.assertj.core.api.Assertions.catchThrowable(
                () -> fetch("controller-token").read(NODE, run(), null, null));
    assertThat(e.code()).isEqualTo(404);
    assertThat(e.getMessage())
        .isEqualTo(
            "node ws-7 keeps no output of run 2 of batchjob team-a/solve (nothing written yet, or"
                + " it ran elsewhere).");
  }

  private AgentOutputFetch fetch(String token) {
    BatchNode node = new BatchNode();
    node.getMetadata().setName(NODE);
    node.setStatus(new BatchNodeStatus());
    node.getStatus().setLogEndpoint(endpoint);
    return new AgentOutputFetch(
        n -> n.equals(NODE) ? Optional.of(node) : Optional.empty(), n -> token);
  }

  private static AgentOutputs.OutputRun run() {
    return new AgentOutputs.OutputRun(RUN.namespace(), RUN.name(), RUN.uid(), RUN.run(), 0);
  }

  private String where() {
    return endpoint.getHost() + ":" + endpoint.getPort();
  }

  private void write(byte[] bytes) throws Exception {
    Path file = ProcessExecutor.logFile(state, RUN);
    Files.createDirectories(file.getParent());
    Files.write(file, bytes);
  }

  /** A call with the pinned certificate and the given Authorization header (null: none). */
  private HttpResponse<String> direct(String authorization) throws Exception {
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    trusted.load(null, null);
    trusted.setCertificateEntry(
        "agent",
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(
                    endpoint.getCertificate().getBytes(StandardCharsets.US_ASCII))));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(
                URI.create(
                    "https://"
                        + where()
                        + LogEndpoint.PATH
                        + "?namespace=team-a&name=solve&uid=uid-1&run=2&replica=0"))
            .timeout(Duration.ofSeconds(10));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return HttpClient.newBuilder()
        .sslContext(tls)
        .build()
        .send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
