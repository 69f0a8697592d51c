package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.octomy.batch.api.BatchJob;
import io.octomy.batch.api.BatchNode;
import io.octomy.batch.api.BatchQueue;
import io.octomy.batch.api.Conditions;
import io.octomy.batch.vocabulary.ConditionTypes;
import io.octomy.batch.vocabulary.Labels;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Thin on purpose: a change to a job, a node or a job's Pod only asks the one {@link AdmissionLoop}
 * for a pass. Deciding here, per job and on many threads at once, would double-book capacity.
 * Status changes (ours) do not reach it: events are generation-aware. Deletes do (every event is
 * handed to it, JOSDK keeps no finalizer of its own), so a job being deleted is let go of at once.
 */
@ControllerConfiguration(name = "batchjob", triggerReconcilerOnAllEvents = true)
public final class BatchJobReconciler implements Reconciler<BatchJob> {

  private final AdmissionLoop loop;
  private final CacheView caches;

  public BatchJobReconciler(AdmissionLoop loop, CacheView caches) {
    this.loop = loop;
    this.caches = caches;
  }

  /** {@code job} is the informer cache's own object, not a copy: it is never read or changed. */
  @Override
  public UpdateControl<BatchJob> reconcile(BatchJob job, Context<BatchJob> context) {
    // Reconciliation starts once every informer has synced: from here the caches are whole.
    loop.activate();
    loop.requestPass();
    return UpdateControl.noUpdate();
  }

  @Override
  public List<EventSource<?, BatchJob>> prepareEventSources(EventSourceContext<BatchJob> context) {
    // A heartbeat alone changes no decision; node expiry is caught by the loop's timer. Labels do:
    // a job's nodeSelector is matched against them.
    InformerEventSource<BatchNode, BatchJob> nodes =
        askingForAPass(
            BatchNode.class,
            "batchnodes",
            (newer, older) ->
                !Objects.equals(newer.getSpec(), older.getSpec())
                    || !Objects.equals(
                        newer.getMetadata().getLabels(), older.getMetadata().getLabels())
                    || newer.getStatus() == null
                    || older.getStatus() == null
                    || !Objects.equals(
                        newer.getStatus().getCapacity(), older.getStatus().getCapacity())
                    || !Objects.equals(newer.getStatus().getJobs(), older.getStatus().getJobs())
                    || !Objects.equals(readiness(newer), readiness(older)),
            context);
    InformerEventSource<Pod, BatchJob> pods =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Pod.class, BatchJob.class)
                .withName("jobpods")
                .withLabelSelector(Labels.JOB_UID)
                .withSecondaryToPrimaryMapper(
                    p -> {
                      loop.requestPass();
                      return p.getMetadata().getOwnerReferences() == null
                          ? Set.of()
                          : p.getMetadata().getOwnerReferences().stream()
                              .filter(o -> "BatchJob".equals(o.getKind()))
                              .map(o -> new ResourceID(o.getName(), p.getMetadata().getNamespace()))
                              .collect(Collectors.toSet());
                    })
                .build(),
            context);
    // A queue's spec and a namespace's labels change which jobs a queue holds and its caps; the
    // status the controller writes on a queue changes no decision.
    InformerEventSource<BatchQueue, BatchJob> queues =
        askingForAPass(
            BatchQueue.class,
            "batchqueues",
            (newer, older) -> !Objects.equals(newer.getSpec(), older.getSpec()),
            context);
    InformerEventSource<Namespace, BatchJob> namespaces =
        askingForAPass(
            Namespace.class,
            "namespaces",
            (newer, older) ->
                !Objects.equals(newer.getMetadata().getLabels(), older.getMetadata().getLabels()),
            context);
    caches.attach(context.getPrimaryCache(), nodes, pods);
    caches.attachQueues(queues, namespaces);
    return List.of(nodes, pods, queues, namespaces);
  }

  /**
   * An informer whose changes ({@code changed} on updates; every create and delete) ask for a pass
   * and map to no job: the pass reads what it holds for every job at once.
   */
  private <R extends HasMetadata> InformerEventSource<R, BatchJob> askingForAPass(
      Class<R> kind, String name, OnUpdateFilter<R> changed, EventSourceContext<BatchJob> context) {
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(kind, BatchJob.class)
            .withName(name)
            .withSecondaryToPrimaryMapper(
                r -> {
                  loop.requestPass();
                  return Set.of();
                })
            .withOnUpdateFilter(changed)
            .build(),
        context);
  }

  private static String readiness(BatchNode n) {
    var c = Conditions.find(n.getStatus().getConditions(), ConditionTypes.READY);
    return c == null ? null : c.getStatus();
  }
}
