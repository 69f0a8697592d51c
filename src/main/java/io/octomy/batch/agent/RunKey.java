package io.octomy.batch.agent;

import java.util.regex.Pattern;

/**
 * Identifies one BatchJob run on this node. The UID is part of the key: a job deleted and
 * re-created under the same name is a new job and runs again, while the same UID and run number
 * never run twice. A retried job's next run has the next number ({@code status.run}).
 *
 * @param namespace {@code metadata.namespace}
 * @param name {@code metadata.name}
 * @param uid {@code metadata.uid}
 * @param run the run's number, from 1; 0 (a state written before runs were numbered) reads as 1
 * @param replica the gang replica this process is ({@code OCTOMY_REPLICA_INDEX}), 0 for a job of
 *     one replica and in a state written before gangs
 */
public record RunKey(String namespace, String name, String uid, int run, int replica) {

  /** Directory names of later runs: {@code UID.runN}; a first run's is the UID alone. */
  private static final String RUN_SUFFIX = ".run";

  /** Directory names of replicas after the first: the run's name and {@code .replicaI}. */
  private static final String REPLICA_SUFFIX = ".replica";

  // Kubernetes names and UIDs never hold these; checking keeps the key safe as a path segment.
  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  public RunKey {
    check("namespace", namespace);
    check("name", name);
    check("uid", uid);
    run = Math.max(1, run);
    replica = Math.max(0, replica);
  }

  /** The first (or only) replica of a run. */
  public RunKey(String namespace, String name, String uid, int run) {
    this(namespace, name, uid, run, 0);
  }

  /** The first run of a job. */
  public RunKey(String namespace, String name, String uid) {
    this(namespace, name, uid, 1);
  }

  /** The same run's replica {@code index}. */
  public RunKey replica(int index) {
    return new RunKey(namespace, name, uid, run, index);
  }

  /**
   * The directory name of this run's files: the UID for run 1 (as before runs were numbered), the
   * UID and {@code .runN} for later ones, beside it; a gang's replica 1 and on add {@code
   * .replicaI}, so replica 0 keeps the name a job of one replica has.
   */
  public String directoryName() {
    return (run == 1 ? uid : uid + RUN_SUFFIX + run)
        + (replica == 0 ? "" : REPLICA_SUFFIX + replica);
  }

  /** The key a run directory names, the inverse of {@link #directoryName()}. */
  static RunKey ofDirectory(String namespace, String name, String directory) {
    int r = directory.lastIndexOf(REPLICA_SUFFIX);
    if (r > 0) {
      try {
        int replica = Integer.parseInt(directory.substring(r + REPLICA_SUFFIX.length()));
        return ofDirectory(namespace, name, directory.substring(0, r)).replica(replica);
      } catch (NumberFormatException e) {
        // not a replica suffix: a uid that happens to hold the text
      }
    }
    int at = directory.lastIndexOf(RUN_SUFFIX);
    if (at > 0) {
      try {
        int run = Integer.parseInt(directory.substring(at + RUN_SUFFIX.length()));
        return new RunKey(namespace, name, directory.substring(0, at), run);
      } catch (NumberFormatException e) {
        // not a run suffix: a uid that happens to hold the text
      }
    }
    return new RunKey(namespace, name, directory);
  }

  private static void check(String what, String value) {
    if (value == null || !SEGMENT.matcher(value).matches() || value.contains("..")) {
      throw new IllegalArgumentException(
          "job "
              + what
              + " '"
              + value
              + "' is not a Kubernetes name (letters, digits, '.', '_', '-')");
    }
  }

  @Override
  public String toString() {
    return namespace
        + "/"
        + name
        + " ("
        + uid
        + (run == 1 ? "" : ", run " + run)
        + (replica == 0 ? "" : ", replica " + replica)
        + ")";
  }
}
