package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs real processes through the executor, including simulated agent restarts. */
class ProcessExecutorE2E {

  @TempDir Path state;
  private final List<ProcessExecutor> executors = new ArrayList<>();
  private final List<Long> pids = new ArrayList<>();

  private ProcessExecutor executor() {
    ProcessExecutor e = new ProcessExecutor(state);
    executors.add(e);
    return e;
  }

  private static RunKey key(String name) {
    return new RunKey("studio", name, "uid-" + name);
  }

  private static LaunchSpec sh(RunKey key, String script) {
    return new LaunchSpec(key, List.of("sh", "-c", script), Map.of(), null);
  }

  private JobRecord await(ProcessExecutor e, RunKey key) throws Exception {
    return e.whenFinished(key).get(10, TimeUnit.SECONDS);
  }

  private long pidOf(ProcessExecutor e, RunKey key) {
    long pid = e.record(key).orElseThrow().pid();
    pids.add(pid);
    return pid;
  }

  /**
   * Kills whatever a test left running, the wrapper first: killed after its command, it would write
   * the exit code file while the temporary directory is being deleted.
   */
  @AfterEach
  void killLeftovers() {
    executors.forEach(ProcessExecutor::close);
    for (long pid : pids) {
      ProcessHandle.of(pid)
          .ifPresent(
              h -> {
                List<ProcessHandle> tree = new ArrayList<>(List.of(h));
                tree.addAll(h.descendants().toList());
                tree.forEach(ProcessHandle::destroyForcibly);
                awaitExited(tree);
              });
    }
  }

  @Test
  void exitCodeOutputAndTimesAreRecorded() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("fails");
    Instant before = Instant.now();
    assertThat(e.start(sh(key, "echo to-stdout; echo to-stderr >&2; exit 3"))).isTrue();
    JobRecord r = await(e, key);
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_FAILED);
    assertThat(r.message()).contains("exited with code 3");
    assertThat(r.startedAt()).isAfterOrEqualTo(before.minusSeconds(1));
    assertThat(r.finishedAt()).isAfterOrEqualTo(r.startedAt());
    assertThat(Files.readString(e.logFile(key))).contains("to-stdout", "to-stderr");
    assertThat(e.logFile(key)).isEqualTo(state.resolve("jobs/studio/fails/uid-fails/output.log"));
  }

  @Test
  void successEnvAndWorkingDirectory() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("ok");
    Path wd = state.resolve("elsewhere/deep");
    // Arguments reach the program untouched: no shell re-parses them.
    assertThat(
            e.start(
                new LaunchSpec(
                    key,
                    List.of("sh", "-c", "echo \"$GREETING $1\"; pwd", "argv0", "two words; $(no)"),
                    Map.of("GREETING", "hello"),
                    wd)))
        .isTrue();
    JobRecord r = await(e, key);
    assertThat(r.phase()).isEqualTo(RunPhase.Succeeded);
    assertThat(r.exitCode()).isZero();
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_SUCCEEDED);
    assertThat(r.message()).isNull();
    assertThat(Files.readAllLines(e.logFile(key)))
        .containsExactly("hello two words; $(no)", wd.toRealPath().toString());
  }

  @Test
  void aRelativeWorkingDirectoryIsUnderTheJobsOwnWorkDirectory() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("relative");
    assertThat(
            e.start(
                new LaunchSpec(key, List.of("sh", "-c", "pwd"), Map.of(), Path.of("out\u0001/x"))))
        .isTrue();
    JobRecord r = await(e, key);
    assertThat(r.phase()).isEqualTo(RunPhase.Succeeded);
    Path expected = state.resolve("jobs/studio/relative/uid-relative/work/out\u0001/x");
    assertThat(Files.readAllLines(e.logFile(key)))
        .containsExactly(expected.toRealPath().toString());
    assertThat(Path.of("out\u0001")).as("nothing where the agent runs").doesNotExist();
  }

  @Test
  void aJobSeesOnlyItsDeclaredEnvironmentOverADocumentedMinimum() throws Exception {
    Map<String, String> agent =
        Map.of(
            "KUBECONFIG", "/home/me/.octomy/kubeconfig",
            "AWS_SECRET_ACCESS_KEY", "s3cr3t",
            "HOME", "/home/me",
            "USER", "me");
    assertThat(JobWrapper.jobEnvironment(agent, Map.of("A", "1")))
        .containsExactly(
            Map.entry("PATH", JobWrapper.DEFAULT_PATH),
            Map.entry("HOME", "/home/me"),
            Map.entry("USER", "me"),
            Map.entry("A", "1"));
    ProcessExecutor e = executor();
    RunKey key = key("clean-env");
    e.start(new LaunchSpec(key, List.of("/usr/bin/env"), Map.of("GREETING", "hi"), null));
    assertThat(await(e, key).phase()).isEqualTo(RunPhase.Succeeded);
    List<String> names =
        Files.readAllLines(e.logFile(key)).stream().map(l -> l.split("=", 2)[0]).toList();
    assertThat(names)
        .contains("PATH", "GREETING")
        .isSubsetOf("PATH", "HOME", "USER", "LOGNAME", "GREETING", "PWD", "SHLVL", "_");
  }

  @Test
  void aJobsPathCannotStopTheWrapperRecordingItsExitCode() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("own-path");
    e.start(
        new LaunchSpec(key, List.of("/bin/sh", "-c", "exit 4"), Map.of("PATH", "/nowhere"), null));
    JobRecord r = await(e, key);
    assertThat(r.exitCode()).isEqualTo(4);
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    // the file a restarted agent reads the exit code from (mv from the job's PATH failed here)
    assertThat(e.logFile(key).resolveSibling("exitcode")).hasContent("4");
  }

  @Test
  void aStateDirectoryGivenRelativeStillRecordsTheExitCode() throws Exception {
    // as `octomy-batch standalone` is run with its default, .octomy: the wrapper writes the exit
    // code from inside the job's working directory, where a relative path names nothing
    Path relative = Path.of("").toAbsolutePath().relativize(state);
    assertThat(relative.isAbsolute()).isFalse();
    ProcessExecutor e = new ProcessExecutor(relative);
    executors.add(e);
    RunKey key = key("relative");
    e.start(sh(key, "exit 5"));
    assertThat(await(e, key).exitCode()).isEqualTo(5);
    assertThat(state.resolve("jobs/studio/relative/uid-relative/exitcode")).hasContent("5");
    assertThat(Files.readString(e.logFile(key))).isEmpty();
    assertThat(e.logFile(key)).isAbsolute();
  }

  @Test
  void aMissingProgramFailsWithTheShellsCode() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("typo");
    e.start(new LaunchSpec(key, List.of("no-such-program-octomy"), Map.of(), null));
    JobRecord r = await(e, key);
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.exitCode()).isEqualTo(127);
    assertThat(Files.readString(e.logFile(key))).contains("no-such-program-octomy");
  }

  /** The JDK refuses these before any process exists; the job must end, not stay Running. */
  @Test
  void anEnvironmentTheJdkRefusesIsAFailedStartNotARunningJob() throws Exception {
    ProcessExecutor e = executor();
    RunKey nulValue = key("nul-value");
    RunKey equalsName = key("equals-name");
    assertThat(e.start(new LaunchSpec(nulValue, List.of("true"), Map.of("A", "x\u0000"), null)))
        .isTrue();
    assertThat(e.start(new LaunchSpec(equalsName, List.of("true"), Map.of("A=B", "x"), null)))
        .isTrue();
    for (RunKey key : List.of(nulValue, equalsName)) {
      JobRecord r = await(e, key);
      assertThat(r.phase()).isEqualTo(RunPhase.Failed);
      assertThat(r.reason()).isEqualTo(JobRecord.REASON_START_FAILED);
      assertThat(r.message()).startsWith("could not start true: ");
    }
  }

  @Test
  void theCommandIsExecutedAsAProgramNotAShellBuiltin() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("builtin-name");
    // "exit" is a shell builtin but no program: it must fail like an exec would, and the
    // wrapper must survive to record that.
    e.start(new LaunchSpec(key, List.of("exit", "0"), Map.of(), null));
    JobRecord r = await(e, key);
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.exitCode()).isEqualTo(127);
  }

  @Test
  void aFirstWordWithAnEqualsSignIsAProgramNotAnAssignment() throws Exception {
    // As a container runtime would: "GREETING=hi" names a program (which PATH does not hold),
    // it does not set a variable for "true".
    ProcessExecutor e = executor();
    RunKey key = key("assignment");
    e.start(new LaunchSpec(key, List.of("GREETING=hi", "true"), Map.of(), null));
    JobRecord r = await(e, key);
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.exitCode()).isEqualTo(127);
  }

  @Test
  void aFirstWordStartingWithADashIsNoProgram() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("dash");
    e.start(new LaunchSpec(key, List.of("-c", "true"), Map.of(), null));
    JobRecord r = await(e, key);
    assertThat(r.exitCode()).isEqualTo(127);
    assertThat(Files.readString(e.logFile(key))).contains("-c: not found");
  }

  @Test
  void aWrapperStartedByAnEarlierAgentIsFound() throws Exception {
    // An agent upgraded while its jobs run finds their wrappers by their arguments (the tests'
    // clean-up ends them).
    for (int i = 0; i < JobWrapper.EARLIER_WRAPPERS.size(); i++) {
      String earlier = JobWrapper.EARLIER_WRAPPERS.get(i);
      String exitCodeFile = new JobStateStore(state).exitCodeFile(key("earlier-" + i)).toString();
      Process wrapper =
          new ProcessBuilder(
                  "/bin/sh", "-c", earlier, JobWrapper.WRAPPER_NAME, exitCodeFile, "sleep", "30")
              .start();
      pids.add(wrapper.pid());
      assertThat(JobWrapper.findWrapper(exitCodeFile))
          .map(ProcessHandle::pid)
          .hasValue(wrapper.pid());
    }
  }

  @Test
  void aJobIsNeverStartedTwice() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("once");
    assertThat(e.start(sh(key, "echo ran"))).isTrue();
    assertThat(e.start(sh(key, "echo ran"))).isFalse();
    await(e, key);
    assertThat(e.start(sh(key, "echo ran"))).isFalse();
    assertThat(executor().start(sh(key, "echo ran"))).isFalse(); // nor by a restarted agent
    Thread.sleep(100);
    assertThat(Files.readAllLines(e.logFile(key))).containsExactly("ran");

    // A re-created BatchJob (same name, new uid) is a new job.
    RunKey again = new RunKey("studio", "once", "uid-recreated");
    assertThat(e.start(sh(again, "echo ran"))).isTrue();
    assertThat(await(e, again).phase()).isEqualTo(RunPhase.Succeeded);
  }

  @Test
  void startsRacingForOneJobStartItOnceAndOtherJobsStartSideBySide() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("raced");
    int threads = 8;
    CyclicBarrier together = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Boolean>> starts = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        RunKey own = key("own-" + i);
        starts.add(
            pool.submit(
                () -> {
                  together.await();
                  boolean raced = e.start(sh(key, "echo ran"));
                  assertThat(e.start(sh(own, "echo own"))).isTrue();
                  return raced;
                }));
      }
      int won = 0;
      for (Future<Boolean> f : starts) {
        won += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(won).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(await(e, key).phase()).isEqualTo(RunPhase.Succeeded);
    assertThat(Files.readAllLines(e.logFile(key))).containsExactly("ran");
    for (int i = 0; i < threads; i++) {
      assertThat(await(e, key("own-" + i)).phase()).isEqualTo(RunPhase.Succeeded);
    }
    assertThat(e.records()).hasSize(threads + 1);
  }

  @Test
  void aRestartedAgentReadoptsARunningProcessWithoutStartingItAgain() throws Exception {
    ProcessExecutor first = executor();
    RunKey key = key("long");
    first.start(sh(key, "echo started; sleep 30"));
    long pid = pidOf(first, key);
    waitForLog(first.logFile(key), "started"); // the shell may not have written it yet
    first.close(); // the agent goes away; its job keeps running

    ProcessExecutor second = executor();
    JobRecord r = second.record(key).orElseThrow();
    assertThat(r.phase()).isEqualTo(RunPhase.Running);
    assertThat(r.pid()).isEqualTo(pid);
    assertThat(second.start(sh(key, "echo started; sleep 30"))).isFalse();
    assertThat(ProcessHandle.of(pid))
        .hasValueSatisfying(h -> assertThat(ProcessLiveness.hasExited(h)).isFalse());
    assertThat(Files.readAllLines(second.logFile(key))).containsExactly("started");

    assertThat(second.stop(key, Duration.ofSeconds(2))).isTrue();
    JobRecord stopped = second.record(key).orElseThrow();
    assertThat(stopped.phase()).isEqualTo(RunPhase.Failed);
    assertThat(stopped.reason()).isEqualTo(JobRecord.REASON_STOPPED);
    assertThat(ProcessHandle.of(pid).filter(h -> !ProcessLiveness.hasExited(h))).isEmpty();
  }

  @Test
  void anAdoptedProcessThatExitsReportsItsRealExitCode() throws Exception {
    ProcessExecutor first = executor();
    RunKey key = key("adopted-exit");
    first.start(sh(key, "sleep 0.5; exit 4"));
    pidOf(first, key);
    first.close();
    ProcessExecutor second = executor();
    assertThat(second.record(key).orElseThrow().phase()).isEqualTo(RunPhase.Running);
    JobRecord r = await(second, key);
    assertThat(r.exitCode()).isEqualTo(4);
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_FAILED);
  }

  @Test
  void aJobThatEndedWhileTheAgentWasDownKeepsItsExitCodeAndItsEndTime() throws Exception {
    ProcessExecutor first = executor();
    RunKey key = key("ended-meanwhile");
    first.start(sh(key, "sleep 1; exit 0")); // ends after the agent stopped
    long pid = pidOf(first, key);
    first.close();
    ProcessHandle.of(pid).ifPresent(h -> awaitExited(List.of(h)));
    Instant exited = Instant.now();
    Thread.sleep(1500); // the agent comes back a while after the job ended
    JobRecord r = executor().record(key).orElseThrow();
    assertThat(r.phase()).isEqualTo(RunPhase.Succeeded);
    assertThat(r.exitCode()).isZero();
    // Its run time is its own, not stretched to the agent's return.
    assertThat(r.finishedAt()).isBeforeOrEqualTo(exited);
  }

  @Test
  void aProcessGoneAfterARestartIsAgentLost() throws Exception {
    ProcessExecutor first = executor();
    RunKey key = key("lost");
    first.start(sh(key, "sleep 30"));
    long pid = pidOf(first, key);
    first.close();
    // Killed outright while no agent watched: nothing recorded an exit code.
    // The wrapper goes first: were the command killed first, the wrapper would still record its
    // exit code.
    ProcessHandle h = ProcessHandle.of(pid).orElseThrow();
    List<ProcessHandle> children = h.descendants().toList();
    h.destroyForcibly();
    awaitExited(List.of(h));
    children.forEach(ProcessHandle::destroyForcibly);
    awaitExited(children);

    ProcessExecutor second = executor();
    JobRecord r = second.record(key).orElseThrow();
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_AGENT_LOST);
    assertThat(r.exitCode()).isNull();
    assertThat(second.start(sh(key, "sleep 30"))).isFalse();
    // The verdict is persisted: a third agent says the same without looking at processes.
    assertThat(executor().record(key).orElseThrow().reason())
        .isEqualTo(JobRecord.REASON_AGENT_LOST);
  }

  @Test
  void aWrapperKilledBetweenCreatingAndWritingItsExitCodeFileIsAgentLost() throws Exception {
    // The wrapper writes the file in place: killed between the two, it leaves the file empty.
    ProcessExecutor first = executor();
    RunKey key = key("torn");
    first.start(sh(key, "sleep 30"));
    ProcessHandle h = ProcessHandle.of(pidOf(first, key)).orElseThrow();
    first.close();
    List<ProcessHandle> children = h.descendants().toList();
    h.destroyForcibly();
    awaitExited(List.of(h));
    children.forEach(ProcessHandle::destroyForcibly);
    awaitExited(children);
    Files.writeString(new JobStateStore(state).exitCodeFile(key), "");

    JobRecord r = executor().record(key).orElseThrow();
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_AGENT_LOST);
    assertThat(r.exitCode()).isNull();
  }

  @Test
  void anIntentWithoutAProcessIsAgentLostNotRerun() throws Exception {
    // The agent died between recording the intent and starting the process.
    RunKey key = key("intent");
    new JobStateStore(state).write(JobState.intent(key, List.of("echo", "x"), Instant.now()));
    ProcessExecutor e = executor();
    assertThat(e.record(key).orElseThrow().reason()).isEqualTo(JobRecord.REASON_AGENT_LOST);
    assertThat(e.start(sh(key, "echo x"))).isFalse();
  }

  @Test
  void anIntentWhoseProcessIsRunningIsReadoptedNotLost() throws Exception {
    // The agent died after starting the process but before recording its pid.
    ProcessExecutor first = executor();
    RunKey key = key("unrecorded");
    first.start(sh(key, "sleep 1; exit 6"));
    long pid = pidOf(first, key);
    first.close();
    new JobStateStore(state)
        .write(JobState.intent(key, List.of("sh", "-c", "sleep 1; exit 6"), Instant.now()));

    ProcessExecutor second = executor();
    JobRecord adopted = second.record(key).orElseThrow();
    assertThat(adopted.phase()).isEqualTo(RunPhase.Running);
    assertThat(adopted.pid()).isEqualTo(pid);
    assertThat(await(second, key).exitCode()).isEqualTo(6);
    // The pid found is recorded, so a third agent need not search again.
    assertThat(executor().record(key).orElseThrow().exitCode()).isEqualTo(6);
  }

  @Test
  void anIntentWhoseProcessEndedIsFinishedFromItsExitCode() throws Exception {
    ProcessExecutor first = executor();
    RunKey key = key("unrecorded-ended");
    first.start(sh(key, "exit 0"));
    await(first, key);
    first.close();
    new JobStateStore(state)
        .write(JobState.intent(key, List.of("sh", "-c", "exit 0"), Instant.now()));

    JobRecord r = executor().record(key).orElseThrow();
    assertThat(r.phase()).isEqualTo(RunPhase.Succeeded);
    assertThat(r.exitCode()).isZero();
  }

  @Test
  void anotherJobsWrapperIsNotTakenForThisOne() throws Exception {
    ProcessExecutor first = executor();
    RunKey running = key("other");
    first.start(sh(running, "sleep 30"));
    pidOf(first, running);
    assertThat(JobWrapper.findWrapper(new JobStateStore(state).exitCodeFile(running).toString()))
        .isPresent();
    assertThat(
            JobWrapper.findWrapper(new JobStateStore(state).exitCodeFile(key("absent")).toString()))
        .isEmpty();
  }

  @Test
  void aReusedPidWithAnotherStartTimeIsNotAdopted() throws Exception {
    // Record this very JVM's pid with a start time a day off: alive, but not our process.
    RunKey key = key("reused");
    long self = ProcessHandle.current().pid();
    new JobStateStore(state)
        .write(
            JobState.intent(key, List.of("x"), Instant.now())
                .running(
                    self,
                    ProcessHandle.current()
                        .info()
                        .startInstant()
                        .orElseThrow()
                        .minus(Duration.ofDays(1))));
    JobRecord r = executor().record(key).orElseThrow();
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_AGENT_LOST);
  }

  @Test
  void stopKillsTheWholeTreeEvenWhenTermIsIgnored() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("stubborn");
    // TERM is ignored by the shell and inherited by its sleep: only the forcible kill works.
    e.start(sh(key, "trap '' TERM; echo ready; while :; do sleep 0.1; done"));
    long pid = pidOf(e, key);
    waitForLog(e.logFile(key), "ready");
    List<ProcessHandle> tree =
        new ArrayList<>(ProcessHandle.of(pid).orElseThrow().descendants().toList());
    assertThat(tree).isNotEmpty();

    long t0 = System.nanoTime();
    assertThat(e.stop(key, Duration.ofMillis(300))).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    assertThat(ProcessHandle.of(pid).filter(h -> !ProcessLiveness.hasExited(h))).isEmpty();
    assertThat(tree).allMatch(ProcessLiveness::hasExited);
    JobRecord r = e.record(key).orElseThrow();
    assertThat(r.phase()).isEqualTo(RunPhase.Failed);
    assertThat(r.reason()).isEqualTo(JobRecord.REASON_STOPPED);
    assertThat(e.stop(key)).isFalse(); // nothing left to stop
  }

  @Test
  void recordsListEveryJobAndForgetRemovesOnlyFinishedOnes() throws Exception {
    ProcessExecutor e = executor();
    RunKey done = key("b-done");
    RunKey running = key("a-running");
    e.start(sh(done, "true"));
    e.start(sh(running, "sleep 30"));
    pidOf(e, running);
    await(e, done);
    assertThat(e.records()).extracting(JobRecord::key).containsExactly(running, done);
    assertThat(e.records())
        .extracting(JobRecord::phase)
        .containsExactly(RunPhase.Running, RunPhase.Succeeded);

    assertThatThrownBy(() -> e.forget(running)).isInstanceOf(IllegalStateException.class);
    e.forget(done);
    assertThat(e.record(done)).isEmpty();
    assertThat(state.resolve("jobs/studio/b-done/uid-b-done")).doesNotExist();
    e.stop(running, Duration.ofSeconds(2));
  }

  @Test
  void theStateFileIsReadableJson() throws Exception {
    ProcessExecutor e = executor();
    RunKey key = key("json");
    e.start(sh(key, "exit 0"));
    await(e, key);
    String json = Files.readString(state.resolve("jobs/studio/json/uid-json/state.json"));
    assertThat(json)
        .contains(
            "\"phase\" : \"Succeeded\"",
            "\"exitCode\" : 0",
            "\"pid\"",
            "\"processStart\"",
            "\"uid\" : \"uid-json\"");
    try (var files = Files.list(state.resolve("jobs/studio/json/uid-json"))) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.endsWith(".tmp")); // temp files were all renamed into place
    }
  }

  @Test
  void keysMustBeKubernetesNames() {
    assertThatThrownBy(() -> new RunKey("studio", "../etc", "u"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LaunchSpec(key("x"), List.of(), Map.of(), null))
        .hasMessageContaining("no command");
  }

  /** Until every process has ended (zombies count: this machine's init reaps only now and then). */
  private static void awaitExited(List<ProcessHandle> handles) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!handles.stream().allMatch(ProcessLiveness::hasExited)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("processes still running: " + handles);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private static void waitForLog(Path log, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (Files.exists(log) && Files.readString(log).contains(text)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no '" + text + "' in " + log);
  }
}
