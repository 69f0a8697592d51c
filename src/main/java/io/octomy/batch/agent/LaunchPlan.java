package io.octomy.batch.agent;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.api.LaunchFields;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure: how a BatchJob runs as a local process, read off its template's first container the way
 * Kubernetes reads it (args follow command; env name/value pairs; {@code $(NAME)} references in
 * command, args and env values expanded; workingDir), with the replica's OCTOMY_REPLICA_* variables
 * ({@link GangReplicas}), or why it cannot.
 *
 * @param spec what to start; null when the job cannot run here
 * @param failureReason a CamelCase code when it cannot ({@link #NO_COMMAND}, {@link
 *     #INVALID_CONTAINER}), else null
 * @param message a sentence saying why it cannot, or null
 * @param notes parts of the container this executor ignores (one sentence each), to log
 */
public record LaunchPlan(
    LaunchSpec spec, String failureReason, String message, List<String> notes) {

  /** The first container has no command: a Process node runs commands, it cannot run an image. */
  public static final String NO_COMMAND = "NoCommand";

  /**
   * The first container holds what no process can start with (an empty item, a NUL character:
   * {@link LaunchFields}).
   */
  public static final String INVALID_CONTAINER = "InvalidContainer";

  public LaunchPlan {
    notes = List.copyOf(notes);
  }

  /** True when there is something to start. */
  public boolean runnable() {
    return spec != null;
  }

  /** The plan for {@code job}, known under {@code key}. */
  public static LaunchPlan of(RunKey key, BatchJob job) {
    Container c = firstContainer(job);
    if (c == null) {
      return refuse(
          NO_COMMAND,
          "job "
              + key
              + " has no container in spec.template.spec.containers; a Process node "
              + "runs the first container's command and args");
    }
    List<String> unlaunchable = LaunchFields.problems(c, "spec.template.spec.containers[0]");
    if (!unlaunchable.isEmpty()) {
      return refuse(
          INVALID_CONTAINER,
          "job " + key + " cannot be started: " + String.join("; ", unlaunchable));
    }
    List<String> command = new ArrayList<>();
    if (c.getCommand() != null) {
      command.addAll(c.getCommand());
    }
    if (command.isEmpty() || command.get(0) == null || command.get(0).isBlank()) {
      return refuse(
          NO_COMMAND,
          "job "
              + key
              + " has no command in its first container"
              + (c.getImage() == null ? "" : " (image " + c.getImage() + ")")
              + "; a Process node runs commands, not images: set command (and args)");
    }
    if (c.getArgs() != null) {
      command.addAll(c.getArgs());
    }
    List<String> notes = new ArrayList<>();
    // The replica's variables come first, so the container's may name them as $(NAME), and are
    // set again after, so a container cannot change what its replica is told.
    Map<String, String> replica = GangReplicas.variables(job, key.replica());
    Map<String, String> env = new LinkedHashMap<>(replica);
    if (c.getEnv() != null) {
      for (EnvVar v : c.getEnv()) {
        if (v.getName() == null || v.getName().isEmpty()) {
          continue;
        }
        if (v.getValueFrom() != null) {
          notes.add(
              "env "
                  + v.getName()
                  + " uses valueFrom, which a Process node cannot resolve; it is not set");
          continue;
        }
        // Kubernetes sets a variable without a value to the empty string, and expands
        // references to the variables defined before it; so do we.
        env.put(
            v.getName(), v.getValue() == null ? "" : VariableReferences.expand(v.getValue(), env));
      }
    }
    env.putAll(replica);
    if (c.getEnvFrom() != null && !c.getEnvFrom().isEmpty()) {
      notes.add("envFrom is not supported on a Process node and is ignored");
    }
    notes.addAll(containersNotRun(job.getSpec().getTemplate().getSpec()));
    // command and args may name the container's variables as $(NAME), as on a Pod.
    command.replaceAll(part -> VariableReferences.expand(part, env));
    Path workingDir =
        c.getWorkingDir() == null || c.getWorkingDir().isBlank()
            ? null
            : Path.of(c.getWorkingDir());
    return new LaunchPlan(new LaunchSpec(key, command, env, workingDir), null, null, notes);
  }

  /** A Process node runs one process: the template's other containers are said to be left out. */
  private static List<String> containersNotRun(PodSpec pod) {
    List<String> notes = new ArrayList<>();
    int others = pod.getContainers().size() - 1;
    if (others > 0) {
      notes.add(
          "only the first container ("
              + pod.getContainers().get(0).getName()
              + ") runs on a Process node; "
              + others
              + " more "
              + (others == 1 ? "is" : "are")
              + " not run");
    }
    if (pod.getInitContainers() != null && !pod.getInitContainers().isEmpty()) {
      notes.add(
          "initContainers are not run on a Process node; put their commands before the first"
              + " container's");
    }
    return notes;
  }

  private static LaunchPlan refuse(String reason, String message) {
    return new LaunchPlan(null, reason, message, List.of());
  }

  private static Container firstContainer(BatchJob job) {
    if (job.getSpec() == null || job.getSpec().getTemplate() == null) {
      return null;
    }
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    if (pod == null || pod.getContainers() == null || pod.getContainers().isEmpty()) {
      return null;
    }
    return pod.getContainers().get(0);
  }
}
