package io.octomy.batch.apiserver;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The embedded Kubernetes API server of standalone mode.
 *
 * <pre>{@code
 * try (EmbeddedApiServer api = EmbeddedApiServer.start(Path.of(".octomy"), 0, crdYamls)) {
 *     api.url();         // https://127.0.0.1:PORT
 *     api.token();       // bearer token (also in the kubeconfig)
 *     api.kubeconfig();  // .octomy/kubeconfig, mode 0600: export KUBECONFIG=...
 *     api.inProcessClient() // a fabric8 client for this process's controller and agent
 * }
 * }</pre>
 *
 * <p>Serves HTTPS on 127.0.0.1 only, with a self-signed certificate written into the kubeconfig as
 * the cluster's CA (kubectl sends a token only over TLS), and a random bearer token. Objects live
 * in {@code stateDir/state.db} (SQLite, WAL) and in an in-memory index; every write is committed
 * before it is answered. See {@code HttpFront} for why the HTTP side is Vert.x directly rather than
 * the mock web server's dispatcher.
 */
public final class EmbeddedApiServer implements AutoCloseable {

  private static final String CRD_KEY = ResourceRegistry.CRD_GROUP + "/customresourcedefinitions";

  private final StateDirLock lock;
  private final ObjectStore store;
  private final GarbageCollector collector;
  private final Vertx vertx;
  private final HttpFront front;
  private final ApiRouter router;
  private final BearerAuth auth;
  private final TlsIdentity tls;
  private final int port;

  private final Path kubeconfig;

  /** The threads that hand answers and watch events to {@link #inProcessClient}s. */
  private final ExecutorService inProcessHandOff = handOffThreads();

  private boolean closed;

  private EmbeddedApiServer(
      StateDirLock lock,
      ObjectStore store,
      GarbageCollector collector,
      Vertx vertx,
      HttpFront front,
      ApiRouter router,
      BearerAuth auth,
      TlsIdentity tls,
      int port,
      Path kubeconfig) {
    this.tls = tls;
    this.lock = lock;
    this.store = store;
    this.collector = collector;
    this.vertx = vertx;
    this.front = front;
    this.router = router;
    this.auth = auth;
    this.port = port;
    this.kubeconfig = kubeconfig;
  }

  /**
   * Opens the state in {@code stateDir} (created when missing), installs or updates the given CRDs,
   * listens on 127.0.0.1 and writes {@code stateDir/kubeconfig}.
   *
   * @param port 0 for any free port
   * @param crds CustomResourceDefinitions as YAML strings (several documents allowed), files
   *     ({@link Path}), Jackson trees or fabric8 model objects
   * @throws StateStoreException when the state database cannot be opened (it is left untouched)
   * @throws ServerCannotStart when another process uses the state directory or the port
   * @throws IllegalArgumentException when a CRD cannot be installed
   */
  public static EmbeddedApiServer start(Path stateDir, int port, List<?> crds) {
    return start(stateDir, port, crds, false, ServerLimits.defaults());
  }

  /** As {@link #start(Path, int, List)}, with other HTTP limits (tests use short timeouts). */
  public static EmbeddedApiServer start(
      Path stateDir, int port, List<?> crds, ServerLimits limits) {
    return start(stateDir, port, crds, false, limits);
  }

  /**
   * As {@link #start(Path, int, List, ServerLimits)}; with {@code rotateCredentials} the
   * certificate and token kept in the state directory are replaced by new ones (every copy of the
   * kubeconfig then goes stale).
   */
  public static EmbeddedApiServer start(
      Path stateDir, int port, List<?> crds, boolean rotateCredentials, ServerLimits limits) {
    return start(stateDir, port, crds, rotateCredentials, limits, CreateFinalizers.none());
  }

  /**
   * As {@link #start(Path, int, List, boolean, ServerLimits)}; new objects of the resources named
   * in {@code createFinalizers} get their finalizer from the server (standalone mode's BatchJobs,
   * for the controller in the same process).
   */
  public static EmbeddedApiServer start(
      Path stateDir,
      int port,
      List<?> crds,
      boolean rotateCredentials,
      ServerLimits limits,
      CreateFinalizers createFinalizers) {
    // Request bodies are read with names as long as a body may be, so that a key too long for the
    // product's readers gets the real server's 422 naming the field rather than a parse error;
    // CommitGuard keeps every such object out of the store.
    StreamReadConstraints bodies =
        StreamReadConstraints.builder()
            .maxNameLength(ServerLimits.defaults().maxBodyBytes())
            .build();
    JsonFactory jsonFactory = new JsonFactory();
    jsonFactory.setStreamReadConstraints(bodies);
    ObjectMapper json = new ObjectMapper(jsonFactory);
    YAMLFactory yamlFactory =
        new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER);
    yamlFactory.setStreamReadConstraints(bodies);
    ObjectMapper yaml = new ObjectMapper(yamlFactory);
    Clock clock = Clock.systemUTC();
    List<AutoCloseable> opened = new ArrayList<>();
    // The CEL environment (half a second on a cold JVM) is made while the stored objects load.
    FutureTask<CelRules> celRules = new FutureTask<>(CelRules::new);
    Thread celStart = new Thread(celRules, "cel-rules");
    celStart.setDaemon(true);
    celStart.start();
    try {
      StateDirPermissions.restrictDirectory(stateDir);
      StateDirLock lock = StateDirLock.acquire(stateDir);
      opened.add(lock);
      SqliteStateStore db = SqliteStateStore.open(stateDir.resolve("state.db"));
      opened.add(0, db);
      StateDirPermissions.restrictDatabaseFiles(stateDir);
      EventRowsMigration.run(db, json);
      ResourceRegistry registry = new ResourceRegistry();
      ObjectStore store =
          new ObjectStore(
              json,
              db,
              new CommitGuard(json, key -> registry.byKey(key).orElse(null)),
              ObjectStore.HISTORY);
      opened.set(0, store);
      store.list(CRD_KEY, null).items().forEach(registry::register);
      store.listen(new RegistryFollower(registry));
      CelRules cel = made(celRules);
      TableRenderer tables = new TableRenderer(clock);
      SerializedObjects texts = store.texts();
      ResourceHandler resources =
          new ResourceHandler(
              store,
              json,
              yaml,
              new ObjectRules(clock),
              new SchemaValidator(cel),
              cel,
              tables,
              texts,
              createFinalizers,
              HeapRoom.ofThisJvm());
      Vertx vertx =
          Vertx.vertx(
              new VertxOptions()
                  .setEventLoopPoolSize(2)
                  .setWorkerPoolSize(2)
                  .setBlockedThreadCheckInterval(10)
                  .setBlockedThreadCheckIntervalUnit(TimeUnit.SECONDS));
      opened.add(
          0,
          () -> vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      GarbageCollector collector =
          new GarbageCollector(
              store,
              key -> registry.byKey(key).orElse(null),
              (type, ns, name, options) -> resources.delete(type, ns, name, options));
      opened.add(0, collector);
      collector.start();
      WatchHandler watches =
          new WatchHandler(
              store,
              json,
              tables,
              (ms, task) -> vertx.setTimer(ms, id -> task.run()),
              WatchHandler.BOOKMARK_MILLIS,
              texts);
      int[] boundPort = {0};
      ApiRouter router =
          new ApiRouter(registry, resources, watches, json, () -> "127.0.0.1:" + boundPort[0]);
      BootstrapObjects.ensureNamespace(router, "default");
      for (JsonNode crd : BootstrapObjects.toTrees(crds, json, yaml)) {
        BootstrapObjects.install(router, json, crd);
      }
      ServerIdentityFile.Identity identity =
          ServerIdentityFile.loadOrCreate(stateDir, rotateCredentials, json);
      BearerAuth auth = identity.auth();
      TlsIdentity tls = identity.tls();
      HttpFront front = new HttpFront(vertx, auth, tls, router, 8, limits);
      opened.add(0, front);
      boundPort[0] = listen(front, port, identity.lastPort());
      ServerIdentityFile.rememberPort(stateDir, identity, boundPort[0], json);
      Path kubeconfig = stateDir.resolve("kubeconfig");
      KubeconfigWriter.write(
          kubeconfig, "https://127.0.0.1:" + boundPort[0], tls.caData(), auth.token(), yaml);
      return new EmbeddedApiServer(
          lock, store, collector, vertx, front, router, auth, tls, boundPort[0], kubeconfig);
    } catch (IOException e) {
      closeAll(opened);
      throw new UncheckedIOException("cannot use state directory " + stateDir, e);
    } catch (RuntimeException e) {
      closeAll(opened);
      throw e;
    }
  }

  /**
   * Listens on the port asked for; without one, on the port of the last start when it is free (a
   * copied kubeconfig names it), else on any free port.
   */
  private static int listen(HttpFront front, int port, int lastPort) {
    if (port == 0 && lastPort > 0) {
      try {
        return front.start(lastPort);
      } catch (IllegalStateException taken) {
        return front.start(0);
      }
    }
    return front.start(port);
  }

  /** The CEL environment made on its own thread at the start. */
  private static CelRules made(FutureTask<CelRules> celRules) {
    try {
      return celRules.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException("cannot set up CEL", e.getCause());
    }
  }

  /** Keeps the served resources in step with CRD objects as they are written and deleted. */
  private record RegistryFollower(ResourceRegistry registry) implements ObjectStore.Watcher {
    @Override
    public boolean matches(ObjectStore.Event event) {
      return event.resource().equals(CRD_KEY);
    }

    @Override
    public void send(ObjectStore.Event event) {
      if (event.type() == ObjectStore.EventType.DELETED) {
        registry.unregister(event.object());
      } else {
        registry.register(event.object());
      }
    }
  }

  /** {@code https://127.0.0.1:PORT}. */
  public URI url() {
    return URI.create("https://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  /** The server certificate (PEM), which is also its own CA; clients trust exactly this. */
  public String certificatePem() {
    return tls.certificatePem();
  }

  /** The bearer token every request must carry. */
  public String token() {
    return auth.token();
  }

  /** The kubeconfig written at start ({@code stateDir/kubeconfig}, mode 0600). */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /**
   * A fabric8 client configuration for this server's HTTPS listener with the in-process credential
   * instead of the user's: its requests are served ahead of users' and outside their in-flight
   * limits ({@link RequestWorkers}), as those of {@link #inProcessClient}, but over HTTP, for a
   * client in this process that is built from a configuration (a controller run beside the server,
   * as the benchmarks do). The credential is drawn at each start and never written anywhere.
   */
  public Config clientConfig() {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url().toString())
        .withCaCertData(tls.caData())
        .withOauthToken(auth.inProcessToken())
        .withNamespace("default")
        .withHttp2Disable(true)
        .build();
  }

  /**
   * A fabric8 client for the controller and agent in this process: its requests reach the router
   * without HTTP ({@link InMemoryHttpClient}) and are served as requests with the in-process
   * credential are, ahead of users' requests. Its configuration is {@link #clientConfig}'s.
   */
  public KubernetesClient inProcessClient() {
    return inProcessClientBuilder().build();
  }

  /**
   * {@link #inProcessClient} sending {@code userAgent}, which names the field manager of its writes
   * (the controller's and the agent's, told apart in {@code metadata.managedFields}).
   */
  public KubernetesClient inProcessClient(String userAgent) {
    Config config = clientConfig();
    config.setUserAgent(userAgent);
    return inProcessClientBuilder().withConfig(config).build();
  }

  /**
   * {@link #inProcessClient}'s builder, for a client in this process that adds to it (an
   * interceptor that counts its requests, as the benchmarks' do).
   */
  public KubernetesClientBuilder inProcessClientBuilder() {
    return new KubernetesClientBuilder()
        .withConfig(clientConfig())
        .withHttpClientFactory(new InMemoryHttpClient.Factory(front, inProcessHandOff));
  }

  private static ExecutorService handOffThreads() {
    AtomicInteger n = new AtomicInteger();
    return new ThreadPoolExecutor(
        0,
        Integer.MAX_VALUE,
        30,
        TimeUnit.SECONDS,
        new SynchronousQueue<>(),
        r -> {
          Thread t = new Thread(r, "octomy-in-process-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** The highest resourceVersion handed out so far. */
  public long resourceVersion() {
    return store.resourceVersion();
  }

  /** Number of stored objects (all kinds). */
  public int objectCount() {
    return store.size();
  }

  ApiRouter router() {
    return router;
  }

  /**
   * Serves a group version by handing its requests to {@code group}, as a real API server serves an
   * aggregated API; until then its paths are not found.
   */
  public void delegate(DelegatedGroup group) {
    router.delegate(group);
  }

  /**
   * Stops listening, ends open watches, folds the SQLite WAL into the database file and releases
   * the state directory. Safe to call twice.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeAll(
        List.of(
            front,
            inProcessHandOff::shutdown,
            () -> vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS),
            collector,
            store,
            lock));
  }

  private static void closeAll(List<AutoCloseable> resources) {
    RuntimeException first = null;
    for (AutoCloseable c : resources) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = new IllegalStateException("error while closing the embedded API server", e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
