package io.octomy.batch.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/** This machine's name as a BatchNode name (a DNS subdomain: lower case, digits, '-' and '.'). */
final class NodeNames {
  private NodeNames() {}

  static String ofThisHost() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = System.getenv().getOrDefault("HOSTNAME", "localhost");
    }
    String name =
        host.toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9.-]+", "-")
            .replaceAll("^[-.]+|[-.]+$", "");
    return name.isEmpty() ? "localhost" : name.length() > 253 ? name.substring(0, 253) : name;
  }
}
