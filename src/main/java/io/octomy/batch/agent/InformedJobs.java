package io.octomy.batch.agent;

import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.Indexer;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.GangReplicas;
import io.octomy.batch.api.OwnerlessItemStore;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The BatchJobs the agent's informer holds, looked up rather than walked: the jobs placed on a node
 * through an informer index on {@code status.node}, and one job by namespace and name. A tick then
 * costs what this node holds, not what the cluster holds (walking every job on every change was a
 * sixth of a standalone server's work while jobs were created).
 */
final class InformedJobs {

  private static final Logger LOG = LoggerFactory.getLogger(InformedJobs.class);

  /** The field label of the BatchJob CRD's selectable field {@code .status.node}. */
  static final String NODE_FIELD = "status.node";

  /** The informer index of jobs by {@code status.node}; jobs not placed are not indexed. */
  static final String BY_NODE = "batch.octomy.io/status.node";

  private final Function<String, List<BatchJob>> byNode;
  private final Function<String, BatchJob> byKey;

  private InformedJobs(Function<String, List<BatchJob>> byNode, Function<String, BatchJob> byKey) {
    this.byNode = byNode;
    this.byKey = byKey;
  }

  /**
   * The indexers an informer needs for {@link #of(Indexer)}: a gang is indexed under each node of
   * its replicas.
   */
  static Map<String, Function<BatchJob, List<String>>> indexers() {
    return Map.of(BY_NODE, job -> GangReplicas.nodes(job).stream().distinct().toList());
  }

  /**
   * Informers (not yet running) on the BatchJobs placed on {@code nodeName}, in all namespaces,
   * cached without their field owners, with {@link #indexers()}: one on the jobs whose {@code
   * status.node} is this node, and one on the gangs ({@code spec.replicas} above 1), whose replicas
   * after the first run on nodes that field does not name. Gangs are few, so caching every one of
   * the cluster costs little.
   *
   * <p>Why a field selector: the agent reads only the jobs placed on its node and the jobs of the
   * runs it holds, which are placed there too; caching every job of the cluster cost a standalone
   * process a typed copy of each of its 20,000 jobs. A job placed elsewhere, or no longer placed
   * here, reads as gone, which is what it is to this node. A server that does not offer the
   * selectable field (kube-apiserver before 1.31, or a BatchJob CRD from before it was declared)
   * answers 400; then every job is informed, as before, and the index still finds this node's.
   */
  static List<SharedIndexInformer<BatchJob>> informers(KubernetesClient client, String nodeName) {
    FilterWatchListDeletable<BatchJob, KubernetesResourceList<BatchJob>, Resource<BatchJob>> all =
        client.resources(BatchJob.class).inAnyNamespace();
    if (!selects(all.withField(NODE_FIELD, nodeName), NODE_FIELD)) {
      return List.of(cached(all));
    }
    // An absent spec.replicas reads as "", so both terms are needed to leave out single jobs.
    FilterWatchListDeletable<BatchJob, KubernetesResourceList<BatchJob>, Resource<BatchJob>> gangs =
        all.withoutField(REPLICAS_FIELD, "").withoutField(REPLICAS_FIELD, "1");
    if (!selects(gangs, REPLICAS_FIELD)) {
      // A CRD that cannot select by spec.replicas is older than gangs: none can be placed here.
      return List.of(cached(all.withField(NODE_FIELD, nodeName)));
    }
    return List.of(cached(all.withField(NODE_FIELD, nodeName)), cached(gangs));
  }

  /** The selectable field of {@code spec.replicas}, which tells gangs apart. */
  static final String REPLICAS_FIELD = "spec.replicas";

  /** Whether the server answers a list with this field selector (400: it cannot select so). */
  private static boolean selects(
      FilterWatchListDeletable<BatchJob, KubernetesResourceList<BatchJob>, Resource<BatchJob>>
          selected,
      String field) {
    try {
      selected.list(new ListOptionsBuilder().withLimit(1L).build());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 400) {
        throw e;
      }
      LOG.warn(
          "the API server cannot select BatchJobs by {} ({}): this agent caches every BatchJob;"
              + " apply the BatchJob CRD of this release, on Kubernetes 1.31 or later, to cache"
              + " only this node's",
          field,
          e.getStatus() == null ? e.getMessage() : e.getStatus().getMessage());
      return false;
    }
  }

  private static SharedIndexInformer<BatchJob> cached(
      FilterWatchListDeletable<BatchJob, KubernetesResourceList<BatchJob>, Resource<BatchJob>>
          selected) {
    return selected
        .withIndexers(indexers())
        .runnableInformer(0)
        .itemStore(new OwnerlessItemStore<>());
  }

  /**
   * Backed by informers' caches built with {@link #indexers()}; a job both hold (a gang placed
   * here) is listed once.
   */
  static InformedJobs ofCaches(List<Indexer<BatchJob>> caches) {
    if (caches.size() == 1) {
      return of(caches.get(0));
    }
    return new InformedJobs(
        node -> {
          Map<String, BatchJob> byUid = new LinkedHashMap<>();
          caches.forEach(
              c -> c.byIndex(BY_NODE, node).forEach(j -> byUid.put(j.getMetadata().getUid(), j)));
          return List.copyOf(byUid.values());
        },
        key ->
            caches.stream()
                .map(c -> c.getByKey(key))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null));
  }

  /** Backed by an informer's cache built with {@link #indexers()}. */
  static InformedJobs of(Indexer<BatchJob> cache) {
    return new InformedJobs(node -> cache.byIndex(BY_NODE, node), cache::getByKey);
  }

  /** Over a plain collection (tests). */
  static InformedJobs of(Collection<BatchJob> jobs) {
    Map<String, BatchJob> byKey = new HashMap<>();
    jobs.forEach(j -> byKey.put(Cache.metaNamespaceKeyFunc(j), j));
    return new InformedJobs(
        node -> jobs.stream().filter(j -> NodeAllocation.placedOn(j, node)).toList(), byKey::get);
  }

  /**
   * Every job whose {@code status.node} is {@code nodeName}, or with a gang replica placed there,
   * whatever its phase.
   */
  List<BatchJob> placedOn(String nodeName) {
    return byNode.apply(nodeName);
  }

  /** The job a run belongs to: same namespace and name, and the same uid; else null. */
  BatchJob jobOf(RunKey key) {
    BatchJob job = byKey.apply(key.namespace() + "/" + key.name());
    return job != null && Objects.equals(job.getMetadata().getUid(), key.uid()) ? job : null;
  }
}
