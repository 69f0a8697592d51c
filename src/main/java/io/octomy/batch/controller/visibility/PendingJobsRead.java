package io.octomy.batch.controller.visibility;

import io.octomy.batch.admission.QueueMembers;
import io.octomy.batch.visibility.QueuedJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A list of pending jobs out of one forecast: the jobs of a namespace, of a BatchQueue's subtree,
 * expected on some nodes, and a page of them ({@code limit} and {@code continue}, as Kubernetes
 * lists page). A continue token names the forecast and the place to go on from, so that every page
 * of one list comes from the same forecast, in pass order, none repeated or skipped.
 *
 * @param jobs the jobs of this page
 * @param next the continue token for the next page, or null on the last one
 * @param remaining how many jobs come after this page
 */
record PendingJobsRead(List<QueuedJob> jobs, String next, long remaining) {

  /**
   * What to keep of a forecast.
   *
   * @param namespace one namespace, or null for every one
   * @param queue a BatchQueue whose subtree's jobs are kept, or null for every queue
   * @param expectedNodes the nodes whose expected jobs are kept, or null for every job
   */
  record JobsKept(String namespace, String queue, Set<String> expectedNodes) {}

  /** Every job of {@code answer} the filter keeps; 404 when no BatchQueue is named so. */
  static List<QueuedJob> of(
      PassForecasts.KeptForecast answer,
      String namespace,
      String queue,
      Set<String> expectedNodes) {
    return page(answer, new JobsKept(namespace, queue, expectedNodes), 0, 0).jobs();
  }

  /**
   * The jobs the filter keeps from the {@code from}-th on (0-based, among those kept), at most
   * {@code limit} of them (0: all).
   */
  static PendingJobsRead page(
      PassForecasts.KeptForecast answer, JobsKept filter, long from, long limit) {
    Set<String> inQueue = null;
    if (filter.queue() != null) {
      Optional<Set<String>> under =
          QueueMembers.namespacesUnder(answer.pass().snapshot().queues(), filter.queue());
      if (under.isEmpty()) {
        throw VisibilityException.notFound(
            "there is no BatchQueue named "
                + filter.queue()
                + "; kubectl get bq lists the queues there are.");
      }
      inQueue = under.get();
    }
    List<QueuedJob> out = new ArrayList<>();
    long seen = 0;
    long remaining = 0;
    for (QueuedJob q : answer.jobs()) {
      if ((filter.namespace() != null && !filter.namespace().equals(q.namespace()))
          || (inQueue != null && !inQueue.contains(q.namespace()))
          || (filter.expectedNodes() != null
              && (q.expectedNode() == null
                  || !filter.expectedNodes().contains(q.expectedNode())))) {
        continue;
      }
      if (seen++ < from) {
        continue;
      }
      if (limit > 0 && out.size() >= limit) {
        remaining++;
      } else {
        out.add(q);
      }
    }
    String next = remaining == 0 ? null : token(answer.generation(), from + out.size());
    return new PendingJobsRead(out, next, remaining);
  }

  /**
   * The token of the page that starts at the {@code from}-th job of forecast {@code generation}.
   */
  static String token(long generation, long from) {
    return generation + "-" + from;
  }

  /** A continue token read back: the forecast's generation and where the page starts. */
  record ContinueToken(long generation, long from) {

    static ContinueToken parse(String token) {
      int dash = token.indexOf('-');
      try {
        if (dash > 0) {
          long generation = Long.parseLong(token.substring(0, dash));
          long from = Long.parseLong(token.substring(dash + 1));
          if (generation > 0 && from >= 0) {
            return new ContinueToken(generation, from);
          }
        }
      } catch (NumberFormatException e) {
        // answered below
      }
      throw VisibilityException.badRequest(
          "continue: Invalid value: \""
              + token
              + "\": pass the metadata.continue of the list before it as it is, or leave it out"
              + " for the first page.");
    }
  }
}
