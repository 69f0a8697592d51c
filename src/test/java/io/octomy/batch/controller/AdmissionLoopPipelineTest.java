package io.octomy.batch.controller;

import static io.octomy.batch.fixtures.ApiFixtures.aJob;
import static io.octomy.batch.fixtures.ApiFixtures.aNode;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchJobStatus;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.BatchQueueStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.NodeJob;
import io.octomy.batch.controller.drift.DriftRecord;
import io.octomy.batch.controller.drift.FinishedRun;
import io.octomy.batch.fixtures.ApiFixtures;
import io.octomy.batch.fixtures.TestClock;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Policy;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pass does not wait for the writes of the pass before: the status writes of chosen jobs are held
 * at the server's door ({@link HeldWrites}) while later passes run, and what each pass decided and
 * wrote is checked once they are let through. No sleeps: the test knows a write is held because it
 * arrived at the door.
 */
class AdmissionLoopPipelineTest {

  private static final String CPU = ApiFixtures.CPU;

  /** {@link FakeCluster} as the writer, with the status writes of named jobs held until let go. */
  static final class HeldWrites implements ClusterWriter {
    final FakeCluster cluster;
    final Set<String> hold = ConcurrentHashMap.newKeySet();
    final Semaphore arrived = new Semaphore(0);
    final Semaphore letGo = new Semaphore(0);
    final Map<String, Integer> statusWrites = new ConcurrentHashMap<>();
    final Semaphore answered = new Semaphore(0);
    final Map<String, WeakReference<BatchJob>> asRead = new ConcurrentHashMap<>();

    HeldWrites(FakeCluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public Result writeStatus(BatchJob job, BatchJobStatus status) {
      String name = job.getMetadata().getName();
      statusWrites.merge(name, 1, Integer::sum);
      asRead.put(name, new WeakReference<>(job));
      if (hold.contains(name)) {
        arrived.release();
        letGo.acquireUninterruptibly();
      }
      try {
        return cluster.writeStatus(job, status);
      } finally {
        answered.release();
      }
    }

    @Override
    public FinalizersWritten writeFinalizers(BatchJob job, List<String> finalizers) {
      return cluster.writeFinalizers(job, finalizers);
    }

    @Override
    public Result writeNodeConditions(BatchNode node, List<Condition> conditions) {
      return cluster.writeNodeConditions(node, conditions);
    }

    @Override
    public Result writeQueueStatus(BatchQueue queue, BatchQueueStatus status) {
      return cluster.writeQueueStatus(queue, status);
    }

    @Override
    public ReadBack readJob(String namespace, String name) {
      return cluster.readJob(namespace, name);
    }

    @Override
    public boolean createPod(Pod pod) {
      return cluster.createPod(pod);
    }

    @Override
    public boolean deletePod(Pod pod) {
      return cluster.deletePod(pod);
    }

    @Override
    public Result deleteJob(BatchJob job) {
      return cluster.deleteJob(job);
    }

    @Override
    public boolean createJob(BatchJob item) {
      return cluster.createJob(item);
    }

    @Override
    public Map<String, String> readCleanedUp(String namespace) {
      return cluster.readCleanedUp(namespace);
    }

    @Override
    public Map<String, String> writeCleanedUp(
        String namespace, UnaryOperator<Map<String, String>> change) {
      return cluster.writeCleanedUp(namespace, change);
    }

    @Override
    public void recordEvent(BatchJob job, JobEvent event, int count) {
      cluster.recordEvent(job, event, count);
    }

    @Override
    public DriftFold foldDrift(String namespace, FinishedRun run, UnaryOperator<DriftRecord> fold) {
      return cluster.foldDrift(namespace, run, fold);
    }
  }

  private final FakeCluster cluster = new FakeCluster();
  private final HeldWrites writer = new HeldWrites(cluster);
  private final TestClock clock = TestClock.standing();
  private AdmissionLoop loop;

  @AfterEach
  void close() {
    writer.letGo.release(1000);
    if (loop != null) {
      loop.close();
    }
  }

  private AdmissionLoop loop() {
    // Passes run on the test's thread; a pass asked for by the loop itself never runs meanwhile.
    return loop(Duration.ofHours(1), 4);
  }

  private AdmissionLoop loop(Duration passDelay, int writers) {
    loop =
        new AdmissionLoop(
            cluster,
            writer,
            Policy.defaults(),
            clock,
            new ControllerMetrics(new SimpleMeterRegistry()),
            new AdmissionLoop.Settings(
                passDelay, Duration.ofHours(1), Duration.ofSeconds(30), writers));
    return loop;
  }

  private BatchNode node(long cpu) {
    return aNode("n1")
        .capacity(CPU, cpu)
        .executor(Executor.Process)
        .heartbeat(clock.instant())
        .build();
  }

  /**
   * A pass's writes go out for as long as the slowest is unanswered; the jobs as read whose writes
   * were answered are let go meanwhile, or a large first pass on a slow server would keep a second
   * copy of every job (the cache already holds the version each write made).
   */
  @Test
  void theJobsOfAnsweredWritesAreLetGoWhileTheirPassesSlowestWriteIsOut() throws Exception {
    cluster.add(node(1000));
    for (String name : List.of("slow", "a", "b")) {
      cluster.add(aJob(name).request(CPU, 2000).build()); // fits nowhere: a waiting status each
    }
    writer.hold.add("slow");
    loop();

    CompletableFuture<AdmissionLoop.PassReport> firstPass = loop.sendPass();
    assertThat(writer.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
    assertThat(writer.answered.tryAcquire(2, 30, TimeUnit.SECONDS)).as("a and b answered").isTrue();
    loop.runPass(); // the loop's own memory moves on to the versions the writes made
    assertThat(firstPass).isNotDone();

    for (int i = 0;
        i < 20 && (writer.asRead.get("a").get() != null || writer.asRead.get("b").get() != null);
        i++) {
      System.gc();
      Thread.sleep(50);
    }
    assertThat(writer.asRead.get("a").get()).as("a as read, its write answered").isNull();
    assertThat(writer.asRead.get("b").get()).as("b as read, its write answered").isNull();
    writer.letGo.release();
    assertThat(firstPass.get(30, TimeUnit.SECONDS).writes().written()).isEqualTo(3);
  }

  @Test
  void aPassDecidesWhileTheAdmissionOfThePassBeforeIsStillBeingWritten() throws Exception {
    cluster.add(node(1000));
    cluster.add(aJob("first").request(CPU, 600).build());
    writer.hold.add("first");
    loop();

    CompletableFuture<AdmissionLoop.PassReport> firstPass = loop.sendPass();
    assertThat(writer.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
    cluster.add(aJob("too-big-now").request(CPU, 600).build());
    cluster.add(aJob("small").request(CPU, 300).build());
    AdmissionLoop.PassReport second = loop.sendPass().get(30, TimeUnit.SECONDS);

    assertThat(firstPass).isNotDone();
    assertThat(second.admitted()).as("small fits beside first's held place").isEqualTo(1);
    assertThat(cluster.job("small").getStatus().getNode()).isEqualTo("n1");
    assertThat(cluster.job("too-big-now").getStatus().getReason())
        .as("first's place is held while its write is out")
        .isEqualTo("WaitingForCapacity");
    assertThat(writer.statusWrites).containsEntry("first", 1);

    writer.letGo.release();
    assertThat(firstPass.get(30, TimeUnit.SECONDS).writes().admissionsWritten()).isEqualTo(1);
    loop.runPass();
    assertThat(cluster.job("first").getStatus().getPhase()).isEqualTo(JobPhase.Admitted);
    assertThat(cluster.job("too-big-now").getStatus().getPhase()).isEqualTo(JobPhase.Queued);
    assertThat(cluster.admissionsApplied()).containsExactlyInAnyOrder("first@n1", "small@n1");
    assertThat(writer.statusWrites).containsEntry("first", 1);
  }

  @Test
  void aRunEndingWhileItsAdmissionIsBeingWrittenIsFollowedOnceTheWriteIsAnswered()
      throws Exception {
    cluster.add(node(1000));
    cluster.add(aJob("quick").request(CPU, 600).build());
    writer.hold.add("quick");
    loop();
    CompletableFuture<AdmissionLoop.PassReport> admitting = loop.sendPass();
    assertThat(writer.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
    cluster.report("n1", succeeded("quick"));

    AdmissionLoop.PassReport meanwhile = loop.sendPass().get(30, TimeUnit.SECONDS);

    assertThat(meanwhile.written()).as("nothing written over the write that is out").isZero();
    writer.hold.clear();
    writer.letGo.release();
    admitting.get(30, TimeUnit.SECONDS);
    loop.runPass();
    assertThat(cluster.job("quick").getStatus().getPhase()).isEqualTo(JobPhase.Succeeded);
    assertThat(writer.statusWrites).containsEntry("quick", 2);
  }

  @Test
  void aPassAskedForWhileMoreWritesAreOutThanWritersRunsWhenTheyDrainBelowThat() throws Exception {
    cluster.add(node(1000));
    for (String name : List.of("a", "b", "c")) {
      cluster.add(aJob(name).request(CPU, 100).build());
      writer.hold.add(name);
    }
    loop(Duration.ZERO, 1)
        .activate(); // the first pass, on the loop's thread: three writes, one writer
    assertThat(writer.arrived.tryAcquire(30, TimeUnit.SECONDS)).isTrue();
    loop.awaitIdle();

    cluster.add(aJob("later").request(CPU, 100).build());
    loop.requestPass();
    loop.awaitIdle();
    assertThat(cluster.job("later").getStatus()).as("put off while three writes are out").isNull();

    writer.letGo.release(3);
    assertThat(writer.answered.tryAcquire(4, 30, TimeUnit.SECONDS))
        .as("the put-off pass ran once the writes drained, and wrote later's admission")
        .isTrue();
    assertThat(cluster.job("later").getStatus().getNode()).isEqualTo("n1");
    assertThat(cluster.admissionsApplied())
        .containsExactlyInAnyOrder("a@n1", "b@n1", "c@n1", "later@n1");
  }

  private NodeJob succeeded(String job) {
    NodeJob j = new NodeJob();
    j.setNamespace("default");
    j.setName(job);
    j.setUid(cluster.job(job).getMetadata().getUid());
    j.setPhase(JobPhase.Succeeded);
    j.setExitCode(0);
    j.setStartedAt("2026-01-01T00:00:00Z");
    j.setFinishedAt("2026-01-01T00:01:00Z");
    return j;
  }
}
