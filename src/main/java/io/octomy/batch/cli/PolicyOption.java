package io.octomy.batch.cli;

import io.octomy.batch.policy.PolicyLoader;
import io.octomy.batch.vocabulary.Policy;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --policy FILE}, shared by the commands that decide admissions. */
public final class PolicyOption {

  @Option(
      names = "--policy",
      paramLabel = "FILE",
      description =
          "Policy YAML (modes, priority, groups, budgets, nodeHeartbeatTimeout). Every key is optional.")
  Path file;

  /** The loaded policy, or the defaults; a bad file throws with its line and field. */
  public Policy load() {
    return file == null ? Policy.defaults() : PolicyLoader.load(file);
  }
}
