package io.octomy.batch.controller.visibility;

import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.LogEndpoint;
import io.octomy.batch.output.JobOutputText;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads a job's output from the agent of its node, as the API server reads a container's log from
 * its kubelet: at the address the node's status publishes ({@code status.logEndpoint}), over HTTPS
 * trusting exactly the certificate published there, with a token {@link AgentTokens} minted for
 * that node alone. Bounded: a connection within {@link #CONNECT_TIMEOUT}, the whole answer within
 * {@link #ANSWER_TIMEOUT} (past the agent's own 10 s bound on reading the file) and at most the 16
 * MiB the agent sends; whatever fails is answered as one sentence naming the node, the address and
 * what to check.
 */
public final class AgentOutputFetch implements AgentOutputs {

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(15);

  /** The most accepted from an agent: what it sends at most, and room for an error sentence. */
  private static final long MAX_BODY = JobOutputText.MAX_BYTES + 64 * 1024;

  private static final int MAX_CLIENTS = 256;

  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();
  private final Function<String, Optional<BatchNode>> nodes;
  private final Function<String, String> tokens;

  /**
   * @param nodes the BatchNode of a name, from the controller's cache
   * @param tokens a token for a node's agent ({@link AgentTokens#forNode})
   */
  public AgentOutputFetch(
      Function<String, Optional<BatchNode>> nodes, Function<String, String> tokens) {
    this.nodes = nodes;
    this.tokens = tokens;
  }

  @Override
  public byte[] read(String node, OutputRun run, Long tailLines, Long limitBytes) {
    BatchNode n =
        nodes
            .apply(node)
            .orElseThrow(
                () ->
                    VisibilityException.notFound(
                        "batchjob "
                            + run.name()
                            + " ran on node "
                            + node
                            + ", which is gone (no BatchNode "
                            + node
                            + "): its output is only where that machine's agent kept it."));
    LogEndpoint at = n.getStatus() == null ? null : n.getStatus().getLogEndpoint();
    if (at == null || at.getHost() == null || at.getPort() == null || at.getCertificate() == null) {
      throw VisibilityException.notFound(
          "the output of batchjob "
              + run.name()
              + " is kept on node "
              + node
              + ", whose agent serves no output (its BatchNode has no status.logEndpoint: a Pod"
              + " node, whose jobs' output kubectl logs -n "
              + run.namespace()
              + " "
              + run.name()
              + " reads, or a Process agent started with --logs-port -1); read the file named in"
              + " its Started event there (kubectl describe bj "
              + run.name()
              + ").");
    }
    String where = at.getHost() + ":" + at.getPort();
    String token = tokens.apply(node);
    HttpClient http;
    try {
      http = client(at.getCertificate());
    } catch (GeneralSecurityException | IOException e) {
      throw unavailable(
          "node "
              + node
              + " publishes a certificate that cannot be read ("
              + e.getMessage()
              + "): restart its agent, which makes a new one.");
    }
    HttpRequest request =
        HttpRequest.newBuilder(uri(at, run, tailLines, limitBytes))
            .timeout(ANSWER_TIMEOUT)
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    CompletableFuture<HttpResponse<byte[]>> call = http.sendAsync(request, info -> capped());
    HttpResponse<byte[]> answer;
    try {
      answer = call.get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unavailable("interrupted while reading from node " + node + "'s agent.");
    } catch (TimeoutException | ExecutionException e) {
      call.cancel(true);
      throw unreachable(node, where, run, e instanceof ExecutionException ? e.getCause() : e);
    }
    String said = new String(answer.body(), StandardCharsets.UTF_8).strip();
    return switch (answer.statusCode()) {
      case 200 -> answer.body();
      case 404 -> throw VisibilityException.notFound(said);
      case 401, 403 ->
          throw unavailable(
              "node "
                  + node
                  + "'s agent at "
                  + where
                  + " refused this controller ("
                  + said
                  + "): the agent's account needs create on tokenreviews and subjectaccessreviews,"
                  + " and this controller's get on batchnodes/log, as the chart grants them.");
      default ->
          throw new VisibilityException(
              answer.statusCode() == 504 ? 504 : 503,
              answer.statusCode() == 504 ? "Timeout" : "ServiceUnavailable",
              "node " + node + "'s agent could not read batchjob " + run.name() + ": " + said);
    };
  }

  /** A client trusting this certificate alone, kept while the agent keeps it (one per start). */
  private HttpClient client(String certificatePem) throws GeneralSecurityException, IOException {
    HttpClient kept = clients.get(certificatePem);
    if (kept != null) {
      return kept;
    }
    if (clients.size() >= MAX_CLIENTS) {
      clients.clear(); // agents restarted many times: their old certificates are of no use
    }
    HttpClient made =
        HttpClient.newBuilder()
            .sslContext(pinned(certificatePem))
            .connectTimeout(CONNECT_TIMEOUT)
            .build();
    clients.put(certificatePem, made);
    return made;
  }

  private static VisibilityException unreachable(
      String node, String where, OutputRun run, Throwable cause) {
    String why =
        cause instanceof TimeoutException
            ? "no answer within " + ANSWER_TIMEOUT.toSeconds() + " s"
            : cause instanceof HttpConnectTimeoutException
                ? "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s"
                : cause instanceof ConnectException
                    ? "connection refused"
                    : String.valueOf(cause.getMessage());
    return unavailable(
        "cannot read the output of batchjob "
            + run.name()
            + " from node "
            + node
            + "'s agent at "
            + where
            + " ("
            + why
            + "): check that its agent runs (kubectl get bn "
            + node
            + ") and that this controller can reach "
            + where
            + " (a firewall, or the agent's --logs-host).");
  }

  private static URI uri(LogEndpoint at, OutputRun run, Long tailLines, Long limitBytes) {
    StringJoiner q = new StringJoiner("&");
    q.add("namespace=" + encoded(run.namespace()));
    q.add("name=" + encoded(run.name()));
    q.add("uid=" + encoded(run.uid()));
    q.add("run=" + run.run());
    q.add("replica=" + run.replica());
    if (tailLines != null) {
      q.add("tailLines=" + tailLines);
    }
    if (limitBytes != null) {
      q.add("limitBytes=" + limitBytes);
    }
    String host = at.getHost().contains(":") ? "[" + at.getHost() + "]" : at.getHost();
    return URI.create("https://" + host + ":" + at.getPort() + LogEndpoint.PATH + "?" + q);
  }

  private static String encoded(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** TLS that trusts the one published certificate and nothing else. */
  static SSLContext pinned(String certificatePem) throws GeneralSecurityException, IOException {
    Certificate cert =
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(certificatePem.getBytes(StandardCharsets.US_ASCII)));
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    trusted.load(null, null);
    trusted.setCertificateEntry("agent", cert);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    return tls;
  }

  /** A body of at most {@link #MAX_BODY} bytes; a longer one fails the call. */
  private static HttpResponse.BodySubscriber<byte[]> capped() {
    return new HttpResponse.BodySubscriber<>() {
      private final CompletableFuture<byte[]> body = new CompletableFuture<>();
      private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      private Flow.Subscription subscription;

      @Override
      public CompletionStage<byte[]> getBody() {
        return body;
      }

      @Override
      public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
      }

      @Override
      public void onNext(List<ByteBuffer> items) {
        for (ByteBuffer b : items) {
          if (bytes.size() + (long) b.remaining() > MAX_BODY) {
            subscription.cancel();
            body.completeExceptionally(
                new IOException("the agent sent more than " + MAX_BODY + " bytes"));
            return;
          }
          byte[] chunk = new byte[b.remaining()];
          b.get(chunk);
          bytes.write(chunk, 0, chunk.length);
        }
      }

      @Override
      public void onError(Throwable t) {
        body.completeExceptionally(t);
      }

      @Override
      public void onComplete() {
        body.complete(bytes.toByteArray());
      }
    };
  }

  private static VisibilityException unavailable(String message) {
    return new VisibilityException(503, "ServiceUnavailable", message);
  }
}
