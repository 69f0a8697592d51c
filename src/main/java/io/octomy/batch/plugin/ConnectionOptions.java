package io.octomy.batch.plugin;

import picocli.CommandLine.Option;

/** The kubectl flags every subcommand takes: which cluster, which namespace, which output. */
final class ConnectionOptions {

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "The kubeconfig to use (default: KUBECONFIG, then ~/.kube/config).")
  String kubeconfig;

  @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context to use.")
  String context;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NS",
      description = "The namespace (default: the context's, else default).")
  String namespace;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "json or yaml: the server's object as it is (default: a human table).")
  String output;

  PluginConnection connect() {
    return new PluginConnection(kubeconfig, context);
  }

  String namespace(PluginConnection c) {
    return namespace == null || namespace.isBlank() ? c.defaultNamespace() : namespace;
  }

  /** The machine format asked for, or null for the human one; anything else is refused. */
  String machineFormat() {
    if (output == null || output.isBlank() || output.equals("wide")) {
      return null;
    }
    if (output.equals("json") || output.equals("yaml")) {
      return output;
    }
    throw new PluginException(
        "error: unable to match a printer suitable for the output format \""
            + output
            + "\": write -o json, -o yaml or -o wide, or leave -o out for a table.");
  }

  boolean wide() {
    return "wide".equals(output);
  }
}
