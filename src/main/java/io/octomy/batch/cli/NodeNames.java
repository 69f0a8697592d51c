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
    String name = asNodeName(host);
    return name.isEmpty() ? "localhost" : name;
  }

  /**
   * {@code text} as a BatchNode name: lower case, every run of other characters a '-', no '-' or
   * '.' at either end, at most 253 characters; empty when nothing is left.
   */
  static String asNodeName(String text) {
    String name =
        text.toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9.-]+", "-")
            .replaceAll("^[-.]+|[-.]+$", "");
    return name.length() > 253 ? name.substring(0, 253) : name;
  }
}
