package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.controller.ClusterWriter.Result;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A BatchJob's status subresource PUT that reads only the answer's code. The client's {@code
 * updateStatus} parses the answer into a new BatchJob that the controller never reads, and builds
 * each URL by parsing the server's; while a backlog's decisions are written, those two took a tenth
 * of the machine ({@code docs/benchmarks.md}). The request goes through the same client, so the
 * same authentication, TLS and interceptors apply, as with the plugin's requests.
 *
 * <p>Failure handling: 2xx is written; 409 (the resourceVersion is stale) and 404 (the job is gone)
 * are answers, and the write did not land. Anything else, other codes included (a 5xx may come
 * after the write landed), no answer in the client's request timeout, or no connection, is {@link
 * Result#FAILED}: the caller treats the write as possibly landed ({@code AdmissionReadBack}). The
 * write is not retried here: a retry of a write that landed would be answered 409 and taken for one
 * that did not.
 */
final class StatusPut {

  private static final Logger LOG = LoggerFactory.getLogger(StatusPut.class);

  /** The longest part of a refusal's body the log shows. */
  private static final int LOGGED_BODY_CHARS = 300;

  private final KubernetesClient client;
  private final String jobsBase;
  private final long timeoutMillis;

  StatusPut(KubernetesClient client) {
    this.client = client;
    String master = client.getMasterUrl().toString();
    this.jobsBase =
        (master.endsWith("/") ? master.substring(0, master.length() - 1) : master)
            + "/apis/"
            + HasMetadata.getGroup(BatchJob.class)
            + "/"
            + HasMetadata.getVersion(BatchJob.class)
            + "/namespaces/";
    int configured = client.getConfiguration().getRequestTimeout();
    this.timeoutMillis = configured > 0 ? configured : TimeUnit.SECONDS.toMillis(10);
  }

  /** PUTs {@code update} (conditional on its resourceVersion) to its status subresource. */
  Result put(BatchJob update) {
    String namespace = update.getMetadata().getNamespace();
    String name = update.getMetadata().getName();
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder()
            .uri(
                jobsBase
                    + namespace
                    + "/"
                    + HasMetadata.getPlural(BatchJob.class)
                    + "/"
                    + name
                    + "/status")
            .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
            .put("application/json", client.getKubernetesSerialization().asJson(update))
            .build();
    HttpResponse<byte[]> response;
    try {
      response = http.sendAsync(request, byte[].class).get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Result.FAILED;
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      LOG.warn("status write for {}/{} got no answer: {}", namespace, name, cause.toString());
      return Result.FAILED;
    }
    int code = response.code();
    if (HttpResponse.isSuccessful(code)) {
      return Result.WRITTEN;
    }
    if (code == 409) {
      return Result.CONFLICT;
    }
    if (code == 404) {
      return Result.GONE;
    }
    LOG.warn(
        "status write for {}/{} failed: {} {}", namespace, name, code, shortBody(response.body()));
    return Result.FAILED;
  }

  private static String shortBody(byte[] body) {
    if (body == null) {
      return "";
    }
    String text = new String(body, StandardCharsets.UTF_8);
    return text.length() <= LOGGED_BODY_CHARS ? text : text.substring(0, LOGGED_BODY_CHARS) + "…";
  }
}
