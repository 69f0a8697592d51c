package io.octomy.batch.controller;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.controller.ClusterWriter.FinalizersWritten;
import io.octomy.batch.controller.ClusterWriter.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's two writes to a BatchJob, its status and its finalizers, as requests that read
 * from the answer only what the controller uses: the code, and for the finalizers the new
 * resourceVersion. The client's {@code updateStatus} and {@code patch} bind the whole answer to a
 * new BatchJob and build each URL by parsing the server's; while a backlog's decisions were
 * written, those two took a tenth of the machine ({@code docs/benchmarks.md}). The requests go
 * through the same client, so the same authentication, TLS and interceptors apply (and standalone's
 * in-memory transport), as with the plugin's requests.
 *
 * <p>Failure handling: 2xx is written; 409 (the resourceVersion is stale) and 404 (the job is gone)
 * are answers, and the write did not land; for the finalizers 422 too (the server refused the
 * change of the list). Anything else, other codes included (a 5xx may come after the write landed),
 * no answer within the client's request timeout, no connection, or a written finalizer whose answer
 * names no version, is {@link Result#FAILED}: the caller treats an admission's write as possibly
 * landed ({@code AdmissionReadBack}). Nothing is retried here: a retry of a write that landed would
 * be answered 409 and taken for one that did not.
 */
public final class JobWriteRequests {

  private static final Logger LOG = LoggerFactory.getLogger(JobWriteRequests.class);

  private static final JsonFactory JSON = new JsonFactory();

  /** The resource's plural, read from its annotation once rather than on every write. */
  private static final String JOBS = HasMetadata.getPlural(BatchJob.class);

  /** The longest part of a refusal's body the log shows. */
  private static final int LOGGED_BODY_CHARS = 300;

  private final KubernetesClient client;
  private final String namespacesBase;
  private final long timeoutMillis;

  JobWriteRequests(KubernetesClient client) {
    this.client = client;
    this.namespacesBase =
        serverBase(client) + "/apis/" + HasMetadata.getApiVersion(BatchJob.class) + "/namespaces/";
    int configured = client.getConfiguration().getRequestTimeout();
    this.timeoutMillis = configured > 0 ? configured : TimeUnit.SECONDS.toMillis(10);
  }

  /** The API server's URL without a trailing slash, to which request paths are appended. */
  static String serverBase(KubernetesClient client) {
    String master = client.getMasterUrl().toString();
    return master.endsWith("/") ? master.substring(0, master.length() - 1) : master;
  }

  /** PUTs {@code update} (conditional on its resourceVersion) to its status subresource. */
  Result putStatus(BatchJob update) {
    HttpResponse<byte[]> answer =
        send(
            update,
            "/status",
            builder ->
                builder.put(
                    "application/json", client.getKubernetesSerialization().asJson(update)));
    return result("status write", update, answer);
  }

  /**
   * Deletes the job on its uid (DeleteOptions' precondition: another object of the same name gets
   * 409), its dependants (Pods) deleted after it by the garbage collector.
   */
  Result deleteOnUid(BatchJob job) {
    ObjectNode options = Serialization.jsonMapper().createObjectNode();
    options.put("kind", "DeleteOptions").put("apiVersion", "v1");
    options.putObject("preconditions").put("uid", job.getMetadata().getUid());
    options.put("propagationPolicy", "Background");
    HttpResponse<byte[]> answer =
        send(job, "", builder -> builder.delete("application/json", options.toString()));
    return result("deleting", job, answer);
  }

  /** Sends a JSON merge patch of {@code job}'s metadata and reads the version it made. */
  FinalizersWritten patchFinalizers(BatchJob job, String mergePatch) {
    HttpResponse<byte[]> answer =
        send(job, "", builder -> builder.patch("application/merge-patch+json", mergePatch));
    if (answer == null) {
      return new FinalizersWritten(Result.FAILED, null);
    }
    int code = answer.code();
    if (HttpResponse.isSuccessful(code)) {
      String version = resourceVersionOf(answer.body());
      if (version != null) {
        return new FinalizersWritten(Result.WRITTEN, version);
      }
      LOG.warn("the finalizers of {} were written, but the answer names no version", what(job));
      return new FinalizersWritten(Result.FAILED, null);
    }
    if (code == 409 || code == 422) {
      return new FinalizersWritten(Result.CONFLICT, null);
    }
    if (code == 404) {
      return new FinalizersWritten(Result.GONE, null);
    }
    logRefusal("writing the finalizers", job, answer);
    return new FinalizersWritten(Result.FAILED, null);
  }

  /**
   * {@code metadata.resourceVersion} of an object's JSON, read with a streaming parser that skips
   * everything else; null when the text has none or is not an object.
   */
  public static String resourceVersionOf(byte[] object) {
    if (object == null) {
      return null;
    }
    try (JsonParser p = JSON.createParser(object)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean metadata = "metadata".equals(p.currentName());
        if (p.nextToken() != JsonToken.START_OBJECT || !metadata) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          boolean version = "resourceVersion".equals(p.currentName());
          JsonToken value = p.nextToken();
          if (version) {
            return value == JsonToken.VALUE_STRING ? p.getText() : null;
          }
          p.skipChildren();
        }
        return null;
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** Sends one request to the job's URL (plus {@code suffix}); null when there is no answer. */
  private HttpResponse<byte[]> send(
      BatchJob job, String suffix, UnaryOperator<HttpRequest.Builder> method) {
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        method
            .apply(
                http.newHttpRequestBuilder()
                    .uri(
                        namespacesBase
                            + job.getMetadata().getNamespace()
                            + "/"
                            + JOBS
                            + "/"
                            + job.getMetadata().getName()
                            + suffix)
                    .timeout(timeoutMillis, TimeUnit.MILLISECONDS))
            .build();
    try {
      return http.sendAsync(request, byte[].class).get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      LOG.warn("a write to {} got no answer: {}", what(job), cause.toString());
      return null;
    }
  }

  /** A write's answer as a Result: no answer or a refusal (logged) is FAILED. */
  private static Result result(String write, BatchJob job, HttpResponse<byte[]> answer) {
    if (answer == null) {
      return Result.FAILED;
    }
    int code = answer.code();
    if (HttpResponse.isSuccessful(code)) {
      return Result.WRITTEN;
    }
    if (code == 409) {
      return Result.CONFLICT;
    }
    if (code == 404) {
      return Result.GONE;
    }
    logRefusal(write, job, answer);
    return Result.FAILED;
  }

  private static void logRefusal(String write, BatchJob job, HttpResponse<byte[]> answer) {
    LOG.warn("{} of {} failed: {} {}", write, what(job), answer.code(), shortBody(answer.body()));
  }

  private static String what(BatchJob job) {
    return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
  }

  private static String shortBody(byte[] body) {
    if (body == null) {
      return "";
    }
    String text = new String(body, StandardCharsets.UTF_8);
    return text.length() <= LOGGED_BODY_CHARS ? text : text.substring(0, LOGGED_BODY_CHARS) + "…";
  }
}
