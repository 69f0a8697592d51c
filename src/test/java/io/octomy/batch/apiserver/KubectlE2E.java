package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drives the real kubectl binaries (the default one and, when installed, 1.27 and 1.33) against the
 * embedded server: apply, printer columns, -o wide, describe, get -w, patches, delete, a manifest
 * refused by a CEL rule, and the token check.
 */
class KubectlE2E {

  @TempDir static Path dir;

  static EmbeddedApiServer server;
  static KubernetesClient client;

  @BeforeAll
  static void start() {
    List<Path> crds = new ArrayList<>(List.of(TestCrds.sampleCrd()));
    crds.addAll(TestCrds.productCrds());
    server = EmbeddedApiServer.start(dir.resolve("state"), 0, crds);
    client = new KubernetesClientBuilder().withConfig(server.clientConfig()).build();
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  static List<String> kubectls() {
    return Kubectl.versions();
  }

  @ParameterizedTest
  @MethodSource("kubectls")
  void kubectlWorksWithoutDisablingValidation(String binary) throws Exception {
    String ns = "k" + Path.of(binary).getFileName().toString().replaceAll("[^0-9]", "");
    Path home = Files.createDirectories(dir.resolve("home-" + ns));
    Kubectl kubectl = new Kubectl(binary, server.kubeconfig(), home);

    Kubectl.Result created = kubectl.run("create", "namespace", ns);
    assertThat(created.exitCode()).as(created.all()).isZero();
    // typed commands (protobuf bodies from kubectl 1.33 on) work too
    assertThat(kubectl.run("create", "configmap", "cfg", "-n", ns, "--from-literal=a=b").exitCode())
        .isZero();
    assertThat(kubectl.run("get", "configmap", "cfg", "-n", ns, "-o", "jsonpath={.data.a}").out())
        .isEqualTo("b");
    // the category "all" names the kinds a cluster's does (here all of them empty)
    Kubectl.Result all = kubectl.run("get", "all", "-n", ns);
    assertThat(all.exitCode()).as(all.all()).isZero();
    assertThat(all.all()).contains("No resources found");

    Kubectl.Result applied =
        kubectl.run("apply", "-n", ns, "-f", TestCrds.resource("apiserver/sample.yaml").toString());
    assertThat(applied.all()).contains("sample.test.octomy.io/first created");
    assertThat(applied.exitCode()).isZero();

    Kubectl.Result get = kubectl.run("get", "smp", "-n", ns);
    List<String> lines = get.out().lines().toList();
    assertThat(lines.get(0))
        .containsSubsequence("NAME", "MODE", "SIZE", "PHASE", "READY", "AGE")
        .doesNotContain("MESSAGE");
    assertThat(lines.get(1)).matches("first\\s+Slow\\s+3\\s+\\S+s");

    // a watching kubectl sees the status the "controller" (a fabric8 client) writes
    Path watchOut = home.resolve("watch.out");
    Process watch = kubectl.startTo(watchOut, "get", "smp", "-n", ns, "-w");
    try {
      waitFor(watchOut, "first");
      GenericKubernetesResource sample =
          client
              .genericKubernetesResources(TestCrds.SAMPLES)
              .inNamespace(ns)
              .withName("first")
              .get();
      sample.setAdditionalProperty(
          "status",
          Map.of(
              "phase",
              "Running",
              "message",
              "going",
              "conditions",
              List.of(Map.of("type", "Ready", "status", "True"))));
      client
          .genericKubernetesResources(TestCrds.SAMPLES)
          .inNamespace(ns)
          .resource(sample)
          .patchStatus();
      waitFor(watchOut, "Running");
      assertThat(Files.readString(watchOut))
          .containsPattern("first\\s+Slow\\s+3\\s+Running\\s+True");
    } finally {
      watch.destroy();
    }

    Kubectl.Result wide = kubectl.run("get", "smp", "first", "-n", ns, "-o", "wide");
    assertThat(wide.out()).contains("MESSAGE").containsPattern("Running\\s+True\\s+going");

    Kubectl.Result describe = kubectl.run("describe", "smp", "first", "-n", ns);
    assertThat(describe.exitCode()).isZero();
    assertThat(describe.out())
        .contains("Name:", "first", "Kind:         Sample", "Running", "Size:");

    assertThat(
            kubectl
                .run(
                    "patch",
                    "smp",
                    "first",
                    "-n",
                    ns,
                    "--type=merge",
                    "-p",
                    "{\"spec\":{\"size\":5}}")
                .out())
        .contains("patched");
    // a strategic merge patch (kubectl's default type) is refused for a custom resource, with the
    // real server's 415 that names the types to use instead
    Kubectl.Result strategic =
        kubectl.run("patch", "smp", "first", "-n", ns, "-p", "{\"spec\":{\"owner\":\"abc\"}}");
    assertThat(strategic.exitCode()).isNotZero();
    assertThat(strategic.err()).contains("application/merge-patch+json");
    assertThat(
            kubectl
                .run(
                    "patch",
                    "smp",
                    "first",
                    "-n",
                    ns,
                    "--type=json",
                    "-p",
                    "[{\"op\":\"add\",\"path\":\"/spec/owner\",\"value\":\"abc\"}]")
                .out())
        .contains("patched");
    GenericKubernetesResource patched =
        client.genericKubernetesResources(TestCrds.SAMPLES).inNamespace(ns).withName("first").get();
    assertThat(patched.getMetadata().getGeneration()).isEqualTo(3L);
    assertThat(patched.get("spec", "size").toString()).isEqualTo("5");
    assertThat(patched.get("spec", "owner").toString()).isEqualTo("abc");
    assertThat(patched.get("status", "phase").toString()).isEqualTo("Running");

    Kubectl.Result bad =
        kubectl.run(
            "apply", "-n", ns, "-f", TestCrds.resource("apiserver/sample-bad.yaml").toString());
    assertThat(bad.exitCode()).isNotZero();
    assertThat(bad.err()).contains("The Sample \"bad\" is invalid", "size must not exceed limit");

    assertThat(kubectl.run("delete", "smp", "first", "-n", ns).out()).contains("\"first\" deleted");
    assertThat(kubectl.run("get", "smp", "-n", ns).all()).contains("No resources found");
  }

  @ParameterizedTest
  @MethodSource("kubectls")
  void kubectlExplainShowsTheApiTypesDescriptions(String binary) throws Exception {
    Path home =
        Files.createDirectories(dir.resolve("explain-home-" + binary.replaceAll("[^0-9]", "")));
    Kubectl kubectl = new Kubectl(binary, server.kubeconfig(), home);

    Kubectl.Result kind = kubectl.run("explain", "bj");
    assertThat(kind.exitCode()).as(kind.all()).isZero();
    assertThat(kind.out())
        .contains(
            "BatchJob",
            "batch.octomy.io",
            "A batch job waiting for, holding or done with a place",
            "metadata",
            "spec",
            "status");

    Kubectl.Result field = kubectl.run("explain", "bj.spec.resources.requests");
    assertThat(field.exitCode()).as(field.all()).isZero();
    assertThat(field.out()).contains("Reserved for the whole life of the job");

    Kubectl.Result recursive = kubectl.run("explain", "bn.spec", "--recursive");
    assertThat(recursive.exitCode()).as(recursive.all()).isZero();
    assertThat(recursive.out()).contains("mode", "ownMode", "executor");

    Kubectl.Result unknown = kubectl.run("explain", "bj.spec.nosuchfield");
    assertThat(unknown.exitCode()).isNotZero();
    assertThat(unknown.err()).contains("nosuchfield");
  }

  @Test
  void kubeconfigIsPrivateAndPointsAtLoopbackTls() throws Exception {
    assertThat(Files.getPosixFilePermissions(server.kubeconfig()))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    String config = Files.readString(server.kubeconfig());
    assertThat(config)
        .contains(
            "server: \"https://127.0.0.1:" + server.port() + "\"",
            server.token(),
            "certificate-authority-data");
  }

  @Test
  void requestsWithoutTheTokenGet401() throws Exception {
    HttpClient http = HttpClient.newBuilder().sslContext(trusting(server.certificatePem())).build();
    URI uri = server.url().resolve("/api/v1/namespaces");
    HttpResponse<String> none =
        http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.body()).contains("\"reason\":\"Unauthorized\"");
    HttpResponse<String> wrong =
        http.send(
            HttpRequest.newBuilder(uri).header("Authorization", "Bearer nope").build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(wrong.statusCode()).isEqualTo(401);
    HttpResponse<String> watch =
        http.send(
            HttpRequest.newBuilder(uri.resolve("?watch=true")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(watch.statusCode()).isEqualTo(401);
    HttpResponse<String> right =
        http.send(
            HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + server.token()).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(right.statusCode()).isEqualTo(200);
    assertThat(right.body()).contains("\"name\":\"default\"");
  }

  @Test
  void listensOnLoopbackOnly() {
    assertThat(server.url().getHost()).isEqualTo("127.0.0.1");
    // the wildcard address of this host must not answer on the port
    assertThat(
            canConnect(
                "0.0.0.0".equals(nonLoopbackAddress()) ? null : nonLoopbackAddress(),
                server.port()))
        .isFalse();
  }

  private static String nonLoopbackAddress() {
    try {
      for (var nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (var addr : Collections.list(nic.getInetAddresses())) {
          if (!addr.isLoopbackAddress() && addr instanceof Inet4Address) {
            return addr.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      // no interfaces: nothing to check
    }
    return null;
  }

  private static boolean canConnect(String host, int port) {
    if (host == null) {
      return false;
    }
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static SSLContext trusting(String pem) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry(
        "server",
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  private static void waitFor(Path file, String text) throws Exception {
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (Files.exists(file) && Files.readString(file).contains(text)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(
        "no \""
            + text
            + "\" in "
            + file
            + ":\n"
            + (Files.exists(file) ? Files.readString(file) : ""));
  }
}
