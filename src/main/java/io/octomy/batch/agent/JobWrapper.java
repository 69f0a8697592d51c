package io.octomy.batch.agent;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How {@link ProcessExecutor} runs a job's command: under a {@code sh} wrapper that records its
 * exit code, with only the environment the job declares.
 *
 * <p><b>Exit codes across restarts.</b> A restarted agent is not the parent of processes it
 * re-adopts, so it cannot {@code waitpid} them. The command therefore runs under a POSIX {@code sh}
 * wrapper that stays its parent, waits for it and writes {@code $?} to the job's {@code exitcode}
 * file before exiting with the same code. The file is written in place, by one {@code write} of a
 * few bytes, not through a temporary file and {@code mv}: an agent reads it once the wrapper is
 * gone (or, while recovering, reads it again after looking for the wrapper), and a wrapper killed
 * between creating the file and writing it leaves it empty, which reads as no exit code, as a
 * wrapper killed earlier does. That spares every job a fork and exec of {@code mv} and a file. The
 * wrapper execs the command as {@code "$@"} from a subshell, so no argument is ever re-parsed by
 * the shell and the program is found on PATH like an exec would. The file is written by the job's
 * own process tree and survives the agent, so an exit that happens while no agent runs is still
 * reported with its true code. A wrapper killed outright (SIGKILL, OOM killer) records nothing:
 * that job is reported {@code AgentLost}, meaning "ended, and the agent could not learn how". This
 * needs {@code /bin/sh}: Linux and macOS, not Windows.
 */
final class JobWrapper {

  private JobWrapper() {}

  /** The wrapper's {@code $0}: with the exit code file after it, it names one job's wrapper. */
  static final String WRAPPER_NAME = "octomy-job";

  /**
   * $1 is the exit code file, the rest is the command. Not exec'd: sh must outlive the command. The
   * command is exec'd from a subshell, so it is found on PATH as Kubernetes would run it, never
   * taken as a shell builtin or function (a command named "exit" must not end the wrapper before it
   * records anything), and its first word is always the program: {@code FOO=bar} is a program name
   * here, as in a container, not an assignment (as {@code env} would take it). A name starting with
   * {@code -} would be an option to some shells' {@code exec}; no program is looked up for it, like
   * any other name PATH does not hold (127). One exec per job fewer than going through {@code env}.
   * It uses only absolute paths and shell builtins, so nothing in a job's {@code env} (a {@code
   * PATH} without {@code /bin}, say) can stop it recording the exit code.
   */
  static final String WRAPPER =
      "f=$1; shift; case $1 in -*) printf '%s: not found\\n' \"$1\" >&2; c=127;; "
          + "*) (exec \"$@\"); c=$?;; esac; "
          + "printf '%s\\n' \"$c\" > \"$f\"; exit $c";

  /**
   * The wrappers of earlier agents, which a restarted agent may find still running its jobs ({@link
   * #findWrapper}); they wrote the exit code through a temporary file.
   */
  static final List<String> EARLIER_WRAPPERS =
      List.of(
          "f=$1; shift; /usr/bin/env -- \"$@\"; c=$?; "
              + "printf '%s\\n' \"$c\" > \"$f.tmp\" && /bin/mv -f \"$f.tmp\" \"$f\"; exit $c",
          "f=$1; shift; case $1 in -*) printf '%s: not found\\n' \"$1\" >&2; c=127;; "
              + "*) (exec \"$@\"); c=$?;; esac; "
              + "printf '%s\\n' \"$c\" > \"$f.tmp\" && /bin/mv -f \"$f.tmp\" \"$f\"; exit $c");

  /**
   * The search path a job gets unless its template sets {@code PATH}: the one container runtimes
   * give a container whose image sets none.
   */
  static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  /**
   * A job's environment: only what its template declares, over a documented minimum ({@code PATH},
   * and the agent user's {@code HOME}, {@code USER} and {@code LOGNAME}, which the job runs as).
   * Nothing else of the agent's own environment (its {@code KUBECONFIG}, cloud credentials of the
   * shell that started it) reaches a job, as a kubelet gives a container and HTCondor a job.
   */
  static Map<String, String> jobEnvironment(Map<String, String> agent, Map<String, String> job) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", DEFAULT_PATH);
    for (String name : List.of("HOME", "USER", "LOGNAME")) {
      if (agent.get(name) != null) {
        env.put(name, agent.get(name));
      }
    }
    env.putAll(job);
    return env;
  }

  /**
   * Starts a job's command under the wrapper: in {@code workDir} (created when missing, as
   * Kubernetes does for a workingDir), output and errors appended to {@code logFile}, input from
   * {@code /dev/null}, with only the job's environment.
   */
  static Process launch(LaunchSpec spec, Path workDir, Path exitCodeFile, Path logFile)
      throws IOException {
    Files.createDirectories(workDir);
    List<String> argv =
        new ArrayList<>(List.of("/bin/sh", "-c", WRAPPER, WRAPPER_NAME, exitCodeFile.toString()));
    argv.addAll(spec.command());
    ProcessBuilder pb =
        new ProcessBuilder(argv)
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            // Not a pipe: the job must not get EOF or SIGPIPE from us when the agent goes away.
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().clear();
    pb.environment().putAll(jobEnvironment(System.getenv(), spec.env()));
    return pb.start();
  }

  /** The live wrapper process whose arguments are {@code octomy-job EXITCODEFILE ...}, if any. */
  static Optional<ProcessHandle> findWrapper(String exitCodeFile) {
    try (var all = ProcessHandle.allProcesses()) {
      return all.filter(
              h ->
                  h.info()
                      .arguments()
                      .map(args -> isWrapperOf(List.of(args), exitCodeFile))
                      .orElse(false))
          .filter(h -> !ProcessLiveness.hasExited(h))
          .findFirst();
    }
  }

  private static boolean isWrapperOf(List<String> args, String exitCodeFile) {
    int i = args.indexOf(WRAPPER_NAME);
    return i > 0
        && i + 1 < args.size()
        && args.get(i + 1).equals(exitCodeFile)
        && (args.get(i - 1).equals(WRAPPER) || EARLIER_WRAPPERS.contains(args.get(i - 1)));
  }

  /** The reason a job is recorded with for the exit code its wrapper recorded. */
  static String reasonFor(int code) {
    return code == 0 ? JobRecord.REASON_SUCCEEDED : JobRecord.REASON_FAILED;
  }

  /** What an exit code means, in words; 128 + n is how the shell reports death by signal n. */
  static String messageFor(int code) {
    if (code == 0) {
      return null;
    }
    return code > 128 && code < 160
        ? "the command was killed by signal " + (code - 128) + " (exit code " + code + ")"
        : "the command exited with code " + code;
  }
}
