package io.octomy.batch.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values that picocli's types cannot make, refused as a bad option (exit 2) with
 * what to write instead, before anything starts.
 */
final class CommandChecks {

  /** A DNS subdomain, as Kubernetes requires of a cluster-scoped object's name. */
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private CommandChecks() {}

  /**
   * A port on 127.0.0.1 or the pod's address: 0 takes any free one; with {@code offAllowed}, -1
   * turns the listener off.
   */
  static void port(CommandSpec spec, String option, int value, boolean offAllowed) {
    if (value > 65535 || value < (offAllowed ? -1 : 0)) {
      throw new ParameterException(
          spec.commandLine(),
          option
              + " "
              + value
              + " is not a port; write a number from 1 to 65535, or 0 for any free one"
              + (offAllowed ? " (-1 turns it off)" : ""));
    }
  }

  /** A BatchNode's name, which the server would refuse later and less clearly. */
  static void nodeName(CommandSpec spec, String option, String name) {
    if (name.length() > 253 || !SUBDOMAIN.matcher(name).matches()) {
      throw new ParameterException(
          spec.commandLine(),
          option
              + " "
              + name
              + " is not a node name: write at most 253 lower-case letters, digits, '-' and '.',"
              + " starting and ending with a letter or digit (for example "
              + suggestion(name)
              + ")");
    }
  }

  /** A file this process must read, such as a kubeconfig. */
  static void readableFile(CommandSpec spec, String option, Path file) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ParameterException(
          spec.commandLine(),
          option
              + " "
              + file
              + ": "
              + (Files.exists(file) ? "cannot be read (not a readable file)" : "no such file")
              + "; give the path of a file this user can read");
    }
  }

  /** The name as {@link NodeNames} makes one of a host name, or an example when nothing is left. */
  private static String suggestion(String name) {
    String s = NodeNames.asNodeName(name);
    return s.isEmpty() ? "ws-7" : s;
  }
}
