package io.octomy.batch.agent;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchNodeStatus;
import io.octomy.batch.api.Executor;
import io.octomy.batch.api.LogEndpoint;
import io.octomy.batch.vocabulary.Labels;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent: keeps this machine's BatchNode status current and, with the Process executor,
 * runs the jobs admitted to it.
 *
 * <p>On {@link #start()} it creates the BatchNode when missing (spec from the settings; an existing
 * spec is never rewritten), then writes the whole status at every report interval (the heartbeat),
 * at once after a spec change, and soon after a local job starts or ends. Jobs are followed through
 * an informer on the BatchJobs placed on this node, in all namespaces, and reconciled every sample
 * interval, when running jobs are also measured.
 *
 * <p>Everything but the informers' callbacks and process stops runs on one agent thread, so the job
 * trackers need no locks. {@link #close()} leaves running processes running: the next agent on the
 * same state directory re-adopts them.
 *
 * <p>In-process use (standalone mode):
 *
 * <pre>{@code
 * NodeAgent agent = new NodeAgent(client,
 *     AgentSettings.defaults("ws-7").withStateDir(stateDir.resolve("agent")).withModeTable(policy.modes()),
 *     new OshiHostProbe(), Clock.systemUTC());
 * agent.start();   // returns after the first status write
 * ...
 * agent.close();   // the client stays open: it belongs to the caller
 * }</pre>
 */
public final class NodeAgent implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  /**
   * How long {@link #close()} takes at most, whatever it waits on. The client's requests to a
   * server that accepts connections and never answers fail only after two minutes of retries, and a
   * start holds the agent until its requests end; a stop must not wait for that. 20 s leaves room
   * for what a stop normally waits on (the last report, 5 s, then the agent's thread, 10 s) and
   * ends inside the 30 s a Pod is given between SIGTERM and SIGKILL by default (the chart sets no
   * other), so the agent's Pod ends on its own.
   */
  public static final Duration STOP_BOUND = Duration.ofSeconds(20);

  private final KubernetesClient client;
  private final AgentSettings settings;
  private final HostProbe probe;
  private final Clock clock;
  private final Path cgroupRoot;
  private final NodeStatusComposer composer;
  private final NodeStatusWriter writer;
  private final ScheduledExecutorService loop;
  private final ExecutorService stopper;
  private final AtomicBoolean reportPending = new AtomicBoolean();
  private final AtomicBoolean reconcilePending = new AtomicBoolean();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  // Set in start(); volatile because informer callbacks may queue work before start() returns.
  private volatile SharedIndexInformer<BatchNode> nodes;
  private volatile InformedJobs informed;
  private volatile JobTracker tracker;
  private BatchNodeStatus lastWritten;

  /** This agent's id on its node ({@link NodeClaim}); set in start(), for a Process agent only. */
  private volatile String agentId;

  /**
   * Where this agent serves its jobs' output, published in its status; null when it serves none.
   */
  private volatile LogEndpoint logEndpoint;

  private boolean started;

  /** Set by the first {@link #close()}; a later one returns at once. */
  private final AtomicBoolean closeRequested = new AtomicBoolean();

  /** What the stop is doing, for the line that says what a stop past its bound left. */
  private volatile String stopStep = "waiting for its start to end";

  /**
   * An agent bounded by this process's cgroup, as the real agent is.
   *
   * @param client the API server to report to; stays open when the agent closes
   */
  public NodeAgent(KubernetesClient client, AgentSettings settings, HostProbe probe, Clock clock) {
    this(client, settings, probe, clock, CgroupBounds.ofThisProcess(), CgroupBounds.DEFAULT_ROOT);
  }

  /**
   * @param bounds cgroup bounds applied to measured capacity ({@link CgroupBounds#NONE} in tests)
   * @param cgroupRoot where Pod cgroups are looked up (Pod executor)
   */
  public NodeAgent(
      KubernetesClient client,
      AgentSettings settings,
      HostProbe probe,
      Clock clock,
      CgroupBounds bounds,
      Path cgroupRoot) {
    this.client = client;
    this.settings = settings;
    this.probe = probe;
    this.clock = clock;
    this.cgroupRoot = cgroupRoot;
    this.composer =
        new NodeStatusComposer(
            settings.modeTable(), bounds, settings.capacityOverrides(), settings.executor());
    this.writer = new NodeStatusWriter(client, settings.nodeName());
    this.loop =
        Executors.newSingleThreadScheduledExecutor(daemon("octomy-agent-" + settings.nodeName()));
    this.stopper = Executors.newCachedThreadPool(daemon("octomy-agent-stop"));
  }

  /**
   * Publishes where this agent serves its jobs' output ({@link JobOutputServer}) in its status from
   * the next report on.
   */
  public void publishLogEndpoint(LogEndpoint endpoint) {
    this.logEndpoint = endpoint;
  }

  /** The settings this agent runs with. */
  public AgentSettings settings() {
    return settings;
  }

  /**
   * Creates the BatchNode if missing, starts following jobs, writes the first status and schedules
   * the rest. Returns once the first status is written.
   *
   * @throws IllegalStateException if started twice or after close
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if the API server cannot be
   *     reached or refuses the first writes
   */
  public synchronized NodeAgent start() throws InterruptedException {
    if (started || closeRequested.get()) {
      throw new IllegalStateException("a NodeAgent starts once");
    }
    started = true;
    writer.ensureExists(settings.initialMode(), settings.executor());
    if (settings.executor() == Executor.Process) {
      // Only an agent that starts processes could start a job twice, and only it has a state
      // directory to keep an id in (a Pod agent's container may have no writable one).
      agentId = NodeClaim.idOf(settings.stateDir());
      NodeClaim.claim(
          client,
          settings.nodeName(),
          agentId,
          NodeClaim.freshFor(settings.reportInterval()),
          clock.instant());
    }
    nodes = client.resources(BatchNode.class).withName(settings.nodeName()).inform(nodeHandler());
    informers.add(nodes);
    // run() returns after the initial list: a job missing from the cache is really gone,
    // which matters because a running job whose BatchJob is gone gets stopped.
    List<SharedIndexInformer<BatchJob>> jobInformers =
        InformedJobs.informers(client, settings.nodeName());
    for (SharedIndexInformer<BatchJob> jobInformer : jobInformers) {
      jobInformer.addEventHandler(anyChange(this::requestReconcile));
      jobInformer.run();
      informers.add(jobInformer);
    }
    informed =
        InformedJobs.ofCaches(jobInformers.stream().map(SharedIndexInformer::getIndexer).toList());
    tracker = newTracker();
    try {
      loop.submit(
              () -> {
                tick();
                report();
                return null;
              })
          .get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    }
    long sample = settings.sampleInterval().toMillis();
    long report = settings.reportInterval().toMillis();
    loop.scheduleWithFixedDelay(
        guarded("sampling", this::tick), sample, sample, TimeUnit.MILLISECONDS);
    loop.scheduleWithFixedDelay(
        guarded("reporting", this::report), report, report, TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Whether the job of a run still exists (same uid), read from the server: a job that left this
   * node's informer may have been deleted or only queued again for a retry. An unanswered read
   * counts as existing, so nothing is removed on a guess.
   */
  private boolean jobExists(RunKey key) {
    try {
      BatchJob job =
          client.resources(BatchJob.class).inNamespace(key.namespace()).withName(key.name()).get();
      return job != null && key.uid().equals(job.getMetadata().getUid());
    } catch (RuntimeException e) {
      LOG.debug("cannot read job {}: {}", key, e.toString());
      return true;
    }
  }

  private JobTracker newTracker() {
    if (settings.executor() == Executor.Process) {
      ProcessExecutor executor = new ProcessExecutor(settings.stateDir(), clock);
      return new ProcessJobs(
          settings.nodeName(),
          executor,
          stopper,
          () -> {
            requestReconcile();
            requestReport();
          },
          this::jobExists);
    }
    SharedIndexInformer<Pod> pods =
        client
            .pods()
            .inAnyNamespace()
            .withLabel(Labels.JOB_UID)
            .inform(anyChange(this::requestReconcile));
    informers.add(pods);
    return new PodJobs(settings.nodeName(), () -> pods.getStore().list(), cgroupRoot);
  }

  /**
   * Reconciles jobs and measures the running ones (every sample interval); reports at once when a
   * job started or went.
   */
  private void tick() {
    if (reconcile()) {
      tracker.sample();
    }
  }

  /**
   * Reconciles jobs (on every change to a job): starts what was admitted here, stops what was
   * deleted; measuring is left to the sample interval, so that a burst of changes costs no
   * readings.
   *
   * @return false before {@link #start()} has set the agent up
   */
  private boolean reconcile() {
    reconcilePending.set(false);
    if (tracker == null) {
      return false; // an informer event before start() finished; start() runs the first tick
    }
    long t0 = System.nanoTime();
    boolean changed = tracker.reconcile(informed);
    LOG.debug("reconcile took {} ms, changed {}", (System.nanoTime() - t0) / 1_000_000, changed);
    if (changed) {
      requestReport();
    }
    if (tracker.startsLeft()) {
      requestReconcile(); // after the report just asked for
    }
    return true;
  }

  /** Writes the whole status; recreates the BatchNode if someone deleted it. */
  private void report() {
    reportPending.set(false);
    if (tracker == null) {
      return; // as in tick()
    }
    BatchNode node = nodes.getStore().getByKey(settings.nodeName());
    if (node == null) {
      // Not in the cache: deleted, or the watch is behind. Creating is a no-op if it exists.
      node = writer.ensureExists(settings.initialMode(), settings.executor());
    }
    long t0 = System.nanoTime();
    BatchNodeStatus previous = lastWritten != null ? lastWritten : node.getStatus();
    BatchNodeStatus status =
        composer.compose(
            probe.read(),
            node.getSpec(),
            NodeAllocation.of(settings.nodeName(), informed.placedOn(settings.nodeName())),
            tracker.reports(),
            previous,
            clock.instant());
    status.setAgent(agentId);
    status.setLogEndpoint(logEndpoint);
    long t1 = System.nanoTime();
    writer.writeStatus(status);
    lastWritten = status;
    if (LOG.isDebugEnabled()) {
      LOG.debug(
          "report of {} jobs: compose {} ms, write {} ms",
          status.getJobs() == null ? 0 : status.getJobs().size(),
          (t1 - t0) / 1_000_000,
          (System.nanoTime() - t1) / 1_000_000);
    }
  }

  /** Asks for a report soon; requests made while one is pending are folded into it. */
  private void requestReport() {
    if (reportPending.compareAndSet(false, true)) {
      submit("reporting", this::report);
    }
  }

  private void requestReconcile() {
    if (reconcilePending.compareAndSet(false, true)) {
      submit("reconciling", this::reconcile);
    }
  }

  private void submit(String what, Runnable task) {
    try {
      loop.execute(guarded(what, task));
    } catch (RejectedExecutionException e) {
      // Closed: nothing more to do.
    }
  }

  /**
   * A failed report or tick must not end the schedule: log it and try again next time. An Error too
   * (a class that cannot be loaded, a stack overflow): a periodic task that throws is never run
   * again, and the agent would live on without a heartbeat or a word in its log.
   */
  private Runnable guarded(String what, Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.warn("agent {} failed {}: {}", settings.nodeName(), what, ClientFailure.describe(e));
      } catch (Error e) {
        LOG.error("agent {} failed {}; trying again next time", settings.nodeName(), what, e);
      }
    };
  }

  private ResourceEventHandler<BatchNode> nodeHandler() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(BatchNode node) {
        requestReport();
      }

      @Override
      public void onUpdate(BatchNode before, BatchNode after) {
        // Our own status writes come back here too; only a spec change is news.
        if (!Objects.equals(before.getSpec(), after.getSpec())) {
          requestReport();
        }
      }

      @Override
      public void onDelete(BatchNode node, boolean unknownFinalState) {
        requestReport();
      }
    };
  }

  private static <T> ResourceEventHandler<T> anyChange(Runnable action) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        action.run();
      }

      @Override
      public void onUpdate(T before, T after) {
        action.run();
      }

      @Override
      public void onDelete(T obj, boolean unknownFinalState) {
        action.run();
      }
    };
  }

  /**
   * Stops reporting and following jobs, within {@link #STOP_BOUND}. Running processes keep running
   * and are re-adopted by the next agent on the same state directory. The client is not closed.
   *
   * <p>The stop runs on a thread of its own. If it has not ended within the bound (a start under
   * way still waits on the API server, or a request that server does not answer), one line says
   * what it was waiting for and this returns; the stop goes on in the background or ends with the
   * process, and no job is stopped either way.
   */
  @Override
  public void close() {
    if (!closeRequested.compareAndSet(false, true)) {
      return;
    }
    Thread stop = new Thread(this::stop, "octomy-agent-stop-" + settings.nodeName());
    stop.setDaemon(true);
    stop.start();
    try {
      stop.join(STOP_BOUND.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (stop.isAlive()) {
      LOG.warn(
          "agent {} gave up stopping after {} s, while {}; its jobs run on, for the next agent on "
              + "its state directory to re-adopt",
          settings.nodeName(),
          STOP_BOUND.toSeconds(),
          stopStep);
    }
  }

  /** Synchronized with {@link #start()}: a start under way ends first. */
  private synchronized void stop() {
    stopStep = "saying it stopped";
    sayStopped();
    stopStep = "stopping its informers";
    informers.forEach(SharedIndexInformer::stop);
    stopStep = "waiting for a report or reconcile under way";
    loop.shutdownNow();
    try {
      if (!loop.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("agent {} did not stop its work within 10 s", settings.nodeName());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    stopStep = "detaching from its jobs";
    if (tracker != null) {
      tracker.close();
    }
    stopper.shutdown();
  }

  /**
   * The last report, on the agent's thread after whatever it is doing: Ready=False. Bounded, and
   * only logged when it fails (the server may be closing too, as in standalone mode): a node whose
   * agent says nothing is found not ready by its heartbeat anyway.
   */
  private void sayStopped() {
    try {
      loop.submit(
              () -> {
                if (lastWritten != null) {
                  BatchNodeStatus last = client.getKubernetesSerialization().clone(lastWritten);
                  writer.writeStatus(NodeStatusComposer.stopped(last, clock.instant()));
                }
              })
          .get(5, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      LOG.info("agent {} could not say it stopped: {}", settings.nodeName(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
