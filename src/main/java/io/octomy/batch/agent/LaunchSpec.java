package io.octomy.batch.agent;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What to run for a job: the template's first container flattened into plain values (the caller
 * joins {@code command} and {@code args} as Kubernetes does: args follow command).
 *
 * @param key the job
 * @param command program and arguments; the program is looked up on the agent's PATH
 * @param env variables added to (and overriding) the agent's own environment
 * @param workingDir directory to run in; null means a fresh {@code work} directory beside the job's
 *     log
 */
public record LaunchSpec(
    RunKey key, List<String> command, Map<String, String> env, Path workingDir) {

  public LaunchSpec {
    if (key == null) {
      throw new IllegalArgumentException("a launch needs a job key");
    }
    if (command == null
        || command.isEmpty()
        || command.get(0) == null
        || command.get(0).isBlank()) {
      throw new IllegalArgumentException(
          "job "
              + key
              + " has no command to run: set the first "
              + "container's command (and args) in the template");
    }
    command = List.copyOf(command);
    env = env == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(env));
  }
}
