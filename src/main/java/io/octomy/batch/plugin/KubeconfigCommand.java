package io.octomy.batch.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kubectl octomy kubeconfig --for controller|agent}: a kubeconfig for the chart's controller
 * or agent ServiceAccount, so that a controller or agent outside the cluster runs with exactly the
 * permissions its Pod would have. The token is minted by the server (TokenRequest) with an expiry;
 * the server and its CA are the current kubeconfig's. An agent gets a ServiceAccount of its own,
 * RELEASE-agent-node-NODE, bound to the agent's ClusterRole: its token carries no node, so the
 * chart's own-node policy reads the node from the account's name.
 */
@Command(
    name = "kubeconfig",
    mixinStandardHelpOptions = true,
    description =
        "Write a kubeconfig for the chart's controller or agent ServiceAccount (a token from the"
            + " TokenRequest API, the current kubeconfig's server and CA), for running `java -jar"
            + " octomy-batch.jar controller|agent --kubeconfig FILE` outside the cluster.")
final class KubeconfigCommand implements Callable<Integer> {

  /** The chart's component accounts are named RELEASE-controller and RELEASE-agent. */
  private static final String RELEASE = "octomy-batch";

  private static final String INSTALL_NAMESPACE = "octomy-system";

  /** Hours or minutes, as kubectl create token's --duration is usually written. */
  private static final Pattern DURATION = Pattern.compile("([0-9]{1,6})([hm])");

  /** What a ServiceAccount's name must be (a DNS subdomain), as the API server checks it. */
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  @Option(
      names = "--for",
      required = true,
      paramLabel = "controller|agent",
      description = "Whose ServiceAccount: controller or agent.")
  String component;

  @Option(
      names = "--node",
      paramLabel = "NODE",
      description =
          "The agent's node (its BatchNode's name), required with --for agent: the agent gets a"
              + " ServiceAccount of its own that may write only that BatchNode.")
  String node;

  @Option(
      names = {"-o", "--output-file"},
      paramLabel = "FILE",
      description = "Where to write it (mode 600); default: standard output.")
  Path file;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      defaultValue = INSTALL_NAMESPACE,
      description = "Where the chart is installed (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--release",
      paramLabel = "NAME",
      defaultValue = RELEASE,
      description =
          "The Helm release's name (default: ${DEFAULT-VALUE}, which kubectl apply -k manifests/"
              + " installs too).")
  String release;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "24h",
      description =
          "How long the token is valid, e.g. 1h or 8h (default: ${DEFAULT-VALUE}; the server may"
              + " cap it).")
  String duration;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "The kubeconfig to read (default: KUBECONFIG, then ~/.kube/config).")
  String kubeconfig;

  @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context to use.")
  String context;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    if (!component.equals("controller") && !component.equals("agent")) {
      throw new PluginException(
          "error: --for takes controller or agent, not \"" + component + "\".");
    }
    if (node != null && component.equals("controller")) {
      throw new PluginException(
          "error: --node names an agent's node: leave it out for --for controller.");
    }
    if (node == null && component.equals("agent")) {
      throw new PluginException(
          "error: --for agent needs --node NODE, the name of the agent's BatchNode: each"
              + " workstation's agent gets a ServiceAccount that may write only that node.");
    }
    Duration valid = validity();
    Config config =
        kubeconfig == null
            ? Config.autoConfigure(context)
            : Config.fromKubeconfig(context, new File(kubeconfig));
    String chartAccount = serviceAccountName();
    String account = node == null ? chartAccount : nodeAccountName(chartAccount);
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      JsonNode labels = requireAccount(client, chartAccount);
      if (node != null) {
        NodeAccount.ensure(client, namespace, chartAccount, account, labels);
      }
      MintedToken minted = mint(client, account, valid);
      String text = kubeconfigText(config, account, minted.token());
      String expires = minted.expires();
      if (file == null) {
        spec.commandLine().getOut().print(text);
      } else {
        write(file, text);
        spec.commandLine()
            .getErr()
            .println(
                "wrote "
                    + file
                    + ": ServiceAccount "
                    + namespace
                    + "/"
                    + account
                    + " on "
                    + config.getMasterUrl()
                    + ", token valid until "
                    + expires
                    + ". Run: java -jar target/octomy-batch.jar "
                    + (component.equals("controller")
                        ? "controller"
                        : "agent --node " + (node == null ? "NODE" : node) + " --executor Process")
                    + " --kubeconfig "
                    + file);
      }
      return 0;
    }
  }

  private Duration validity() {
    Matcher m = DURATION.matcher(duration);
    Duration d =
        !m.matches()
            ? Duration.ZERO
            : m.group(2).equals("h")
                ? Duration.ofHours(Long.parseLong(m.group(1)))
                : Duration.ofMinutes(Long.parseLong(m.group(1)));
    if (d.toSeconds() >= 600) {
      return d;
    } else {
      throw new PluginException(
          "error: --duration "
              + duration
              + " is not a duration of at least 10m (the API server's minimum): write e.g. 1h or"
              + " 24h.");
    }
  }

  private String serviceAccountName() {
    String base = release.contains("octomy-batch") ? release : release + "-octomy-batch";
    return base + "-" + component;
  }

  /** RELEASE-agent-node-NODE, refused with a sentence when the API server would refuse it. */
  private String nodeAccountName(String chartAccount) {
    String name = chartAccount + "-node-" + node;
    if (name.length() > 253 || !DNS_SUBDOMAIN.matcher(name).matches()) {
      throw new PluginException(
          "error: --node \""
              + node
              + "\" cannot name the agent's ServiceAccount "
              + chartAccount
              + "-node-NODE: that must be a DNS subdomain of at most 253 characters (lowercase"
              + " letters, digits, '-' and '.', starting and ending with a letter or digit). Write"
              + " the node's name as its BatchNode is named, e.g. ws-7.");
    }
    return name;
  }

  /** The chart's account's labels; refused with how to install when the chart is not there. */
  private JsonNode requireAccount(KubernetesClient client, String account) {
    ServerAnswer found = send(client, accountPath(account), null);
    if (found.code() == 404) {
      throw new PluginException(
          "error: the ServiceAccount "
              + namespace
              + "/"
              + account
              + " does not exist on "
              + client.getConfiguration().getMasterUrl()
              + ". Install the product first (helm install octomy-batch helm/octomy-batch -n"
              + " octomy-system, or kubectl apply -k manifests/; docs/deployment.md), or name"
              + " where it is with -n and --release.");
    }
    if (found.code() != 200) {
      throw new PluginException(
          "error: cannot read the ServiceAccount "
              + namespace
              + "/"
              + account
              + " ("
              + found.body().path("message").asText("code " + found.code())
              + "): it needs get on serviceaccounts there, as a cluster administrator has.");
    }
    return found.body().path("metadata").path("labels");
  }

  private String accountPath(String account) {
    return "/api/v1/namespaces/"
        + PathSegments.namespace(namespace)
        + "/serviceaccounts/"
        + PathSegments.encode(account);
  }

  /** A token from the TokenRequest API, as kubectl create token asks for one. */
  private MintedToken mint(KubernetesClient client, String account, Duration valid) {
    String request =
        "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\","
            + "\"spec\":{\"expirationSeconds\":"
            + valid.toSeconds()
            + "}}";
    ServerAnswer minted = send(client, accountPath(account) + "/token", request);
    if (minted.code() != 201 && minted.code() != 200) {
      throw new PluginException(
          "error: cannot mint a token for "
              + namespace
              + "/"
              + account
              + " ("
              + minted.body().path("message").asText("code " + minted.code())
              + "): it needs get on serviceaccounts and create on serviceaccounts/token there, as"
              + " a cluster administrator has.");
    }
    JsonNode status = minted.body().path("status");
    return new MintedToken(
        status.path("token").asText(), status.path("expirationTimestamp").asText());
  }

  private record MintedToken(String token, String expires) {}

  record ServerAnswer(int code, JsonNode body) {}

  static ServerAnswer send(KubernetesClient client, String path, String postBody) {
    String base = client.getConfiguration().getMasterUrl().replaceAll("/$", "");
    HttpRequest.Builder b =
        client
            .getHttpClient()
            .newHttpRequestBuilder()
            .uri(base + path)
            .header("Accept", "application/json")
            .timeout(30, TimeUnit.SECONDS);
    if (postBody != null) {
      b.post("application/json", postBody);
    }
    try {
      HttpResponse<byte[]> r =
          client.getHttpClient().sendAsync(b.build(), byte[].class).get(30, TimeUnit.SECONDS);
      JsonNode body;
      try {
        body = new ObjectMapper().readTree(r.body() == null ? new byte[0] : r.body());
      } catch (IOException notJson) {
        body = null;
      }
      return new ServerAnswer(
          r.code(), body == null ? new ObjectMapper().createObjectNode() : body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PluginException("interrupted");
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new PluginException(
          "error: cannot reach the server at " + base + ": " + cause.getMessage() + ".");
    }
  }

  private String kubeconfigText(Config config, String account, String token) throws IOException {
    String name = namespace + "-" + account;
    String tls;
    if (config.getCaCertData() != null && !config.getCaCertData().isBlank()) {
      tls = "certificate-authority-data: " + config.getCaCertData().strip();
    } else if (config.getCaCertFile() != null) {
      tls =
          "certificate-authority-data: "
              + Base64.getEncoder()
                  .encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
    } else {
      tls = "insecure-skip-tls-verify: " + config.isTrustCerts();
    }
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: %1$s
          cluster:
            server: "%2$s"
            %3$s
        users:
        - name: %1$s
          user:
            token: %4$s
        contexts:
        - name: %1$s
          context: {cluster: %1$s, user: %1$s, namespace: %5$s}
        current-context: %1$s
        """
        .formatted(name, config.getMasterUrl().replaceAll("/$", ""), tls, token, namespace);
  }

  /** Owner-only from the start: the token is a credential. */
  private static void write(Path target, String text) throws IOException {
    Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), ".kubeconfig", ".tmp");
    try {
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
