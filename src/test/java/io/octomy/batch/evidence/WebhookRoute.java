package io.octomy.batch.evidence;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.octomy.batch.Main;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.controller.aggregated.ServingReplica;
import io.octomy.batch.realcluster.ProductDeployment;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The reservation webhook of {@link WebhookCostBenchmark}: one controller process (default JVM
 * flags, the token its Pod would have) serving it on 127.0.0.1, the chart's visibility Service
 * given that port as its numeric {@code targetPort} (the test cluster's egress proxy dials a
 * ClusterIP there; docs/real-cluster.md), and the chart's MutatingWebhookConfiguration deleted or
 * put back as the controller published it.
 */
final class WebhookRoute implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SERVICE = ProductDeployment.RELEASE + "-visibility";
  private static final String POD = ProductDeployment.RELEASE + "-controller-bench";
  private static final String WEBHOOKS = "MutatingWebhookConfiguration";
  private static final String ADMISSION = "admissionregistration.k8s.io/v1";
  private static final String METRIC = "apiserver_admission_webhook_admission_duration_seconds";

  private final ProductDeployment product;
  private final KubernetesClient admin;
  private final String ns;
  private final Process controller;
  private final int port;
  private GenericKubernetesResource published;
  private Boolean configured;

  private WebhookRoute(ProductDeployment product, String ns, Process controller, int port) {
    this.product = product;
    this.admin = product.cluster().admin();
    this.ns = ns;
    this.controller = controller;
    this.port = port;
  }

  /** Starts the controller, routes the Service to it, and waits until its webhook answers. */
  static WebhookRoute start(ProductDeployment product, String ns) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path log = product.dir().resolve("controller.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "controller",
                "--policy",
                product.policyFile().toString(),
                "--leader-election",
                "--lease-namespace",
                ProductDeployment.NS,
                "--metrics-port",
                "-1",
                "--visibility-port",
                String.valueOf(port),
                "--visibility-service",
                SERVICE)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("KUBECONFIG", product.controllerKubeconfig(POD).toString());
    pb.environment().put("POD_NAME", POD);
    pb.environment().put("POD_NAMESPACE", ProductDeployment.NS);
    WebhookRoute route = new WebhookRoute(product, ns, pb.start(), port);
    try {
      route.route();
    } catch (Exception | Error e) {
      route.controller.destroyForcibly();
      throw e;
    }
    return route;
  }

  /** Waits for the published caBundle, then points the Service at the controller's port. */
  private void route() throws Exception {
    // The controller publishes itself once it has made a pass, which a job sets off.
    var first =
        admin.resources(BatchJob.class).inNamespace(ns).resource(WebhookCostBenchmark.job("first"));
    first.create();
    awaitLog(
        product.dir().resolve("controller.log"),
        "new BatchJobs get the reservation finalizer from this replica's webhook");
    admin
        .services()
        .inNamespace(ProductDeployment.NS)
        .withName(SERVICE)
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"replace\",\"path\":\"/spec/ports/0/targetPort\",\"value\":" + port + "}]");
    first.delete();
    published = webhookConfiguration();
    configured = true;
    awaitPath(true);
  }

  /** Puts the published configuration back, or deletes it; waits until a create shows it. */
  void configure(boolean webhook) throws Exception {
    if (Boolean.valueOf(webhook).equals(configured)) {
      return;
    }
    var configurations = admin.genericKubernetesResources(ADMISSION, WEBHOOKS);
    if (webhook) {
      configurations.resource(published).create();
    } else {
      configurations.withName(ServingReplica.WEBHOOK_CONFIGURATION).delete();
    }
    configured = webhook;
    awaitPath(webhook);
  }

  /** The API server's count and sum of the webhook's calls, and the connections dialled. */
  record Counters(double calls, double seconds, double within5ms, long dialled) {
    String since(Counters before) {
      double n = calls - before.calls;
      return String.format(
          "the API server timed %.0f webhook calls, mean %.2f ms, %.0f within 5 ms;"
              + " connections dialled to the webhook: %d",
          n,
          n == 0 ? Double.NaN : (seconds - before.seconds) / n * 1000,
          within5ms - before.within5ms,
          dialled - before.dialled);
    }
  }

  Counters counters() throws IOException {
    String metrics = admin.raw("/metrics");
    double calls = 0;
    double seconds = 0;
    double within5ms = 0;
    for (String l : metrics.split("\n")) {
      if (!l.startsWith(METRIC) || !l.contains(ServingReplica.WEBHOOK)) {
        continue;
      }
      double v = Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1));
      if (l.startsWith(METRIC + "_count")) {
        calls += v;
      } else if (l.startsWith(METRIC + "_sum")) {
        seconds += v;
      } else if (l.contains("le=\"0.005\"")) {
        within5ms += v;
      }
    }
    Path egress = product.cluster().dir().resolve("egress.log");
    long dialled;
    try (var lines = Files.lines(egress)) {
      dialled = lines.filter(l -> l.contains("\"verdict\":\"dialed\"")).count();
    }
    return new Counters(calls, seconds, within5ms, dialled);
  }

  /**
   * {@code n} POSTs of an AdmissionReview straight to the controller's port over one kept-alive TLS
   * connection (after as many unmeasured): milliseconds from the request's first byte written to
   * the answer's last byte read.
   */
  double[] directCalls(int n) throws Exception {
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode request = review.putObject("request");
    request.put("uid", "direct").put("operation", "CREATE");
    request
        .putObject("resource")
        .put("group", "batch.octomy.io")
        .put("version", "v1alpha1")
        .put("resource", "batchjobs");
    BatchJob job = WebhookCostBenchmark.job("direct");
    job.getMetadata().setNamespace(ns);
    request.set("object", JSON.valueToTree(job));
    byte[] body = JSON.writeValueAsBytes(review);
    byte[] head =
        ("POST /mutate/batchjobs HTTP/1.1\r\nHost: "
                + SERVICE
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, new TrustManager[] {new AnyServer()}, new SecureRandom());
    double[] ms = new double[n];
    try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port)) {
      s.setTcpNoDelay(true);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      for (int i = -n; i < n; i++) {
        long t = System.nanoTime();
        out.write(head);
        out.write(body);
        out.flush();
        String answer = readAnswer(in);
        if (!answer.startsWith("HTTP/1.1 200") || !answer.contains("\"patch\"")) {
          throw new IllegalStateException("the webhook answered: " + answer);
        }
        if (i >= 0) {
          ms[i] = (System.nanoTime() - t) / 1e6;
        }
      }
    }
    return ms;
  }

  @Override
  public void close() throws Exception {
    configure(true);
    controller.destroy();
    controller.waitFor();
  }

  /** Head and body of one HTTP/1.1 answer with a Content-Length. */
  private static String readAnswer(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("the connection closed after: " + head);
      }
      head.append((char) c);
    }
    int length = 0;
    for (String h : head.toString().split("\r\n")) {
      if (h.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(h.substring(15).trim());
      }
    }
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  /** The configuration as the controller published it (its caBundle in), to create again. */
  private GenericKubernetesResource webhookConfiguration() {
    GenericKubernetesResource current =
        admin
            .genericKubernetesResources(ADMISSION, WEBHOOKS)
            .withName(ServingReplica.WEBHOOK_CONFIGURATION)
            .get();
    GenericKubernetesResource copy = new GenericKubernetesResource();
    copy.setApiVersion(ADMISSION);
    copy.setKind(WEBHOOKS);
    ObjectMeta meta = new ObjectMeta();
    meta.setName(current.getMetadata().getName());
    meta.setLabels(current.getMetadata().getLabels());
    meta.setAnnotations(current.getMetadata().getAnnotations());
    copy.setMetadata(meta);
    copy.setAdditionalProperty("webhooks", current.getAdditionalProperties().get("webhooks"));
    return copy;
  }

  /**
   * Waits until a dry-run create comes back with the finalizer ({@code webhook}) or without: the
   * API server's view of the configurations follows a watch, a moment after the write.
   */
  private void awaitPath(boolean webhook) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      BatchJob probe =
          admin
              .resources(BatchJob.class)
              .inNamespace(ns)
              .resource(WebhookCostBenchmark.job("probe"))
              .dryRun()
              .create();
      if (WebhookCostBenchmark.hasFinalizer(probe) == webhook) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "a create is not "
                + (webhook ? "given" : "spared")
                + " the finalizer 60 s after the webhook's configuration was "
                + (webhook ? "created" : "deleted"));
      }
      Thread.sleep(100);
    }
  }

  private void awaitLog(Path log, String line) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!Files.readString(log).contains(line)) {
      if (!controller.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the controller did not log '" + line + "':\n" + Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  /** The benchmark checks the answers, not who signed them: the call goes to 127.0.0.1. */
  private static final class AnyServer implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
