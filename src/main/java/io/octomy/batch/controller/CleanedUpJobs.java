package io.octomy.batch.controller;

import io.octomy.batch.admission.JobKey;
import io.octomy.batch.admission.JobView;
import io.octomy.batch.vocabulary.JobPhase;
import io.octomy.batch.vocabulary.Times;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs the controller deleted for their TTL after they had succeeded, per namespace, as kept on
 * the server in one ConfigMap per namespace ({@link #NAME}): a job's name to {@code "FINISHED-AT
 * UID"}. The controller writes an entry before it deletes such a job, so a dependant that names the
 * job in {@code after}, created before or after the clean-up, still finds it succeeded, across
 * controller restarts and leader changes. A live job of the same name always decides instead, and
 * an entry for a name re-created under another uid is dropped.
 *
 * <p>This is the deciding replica's copy: a namespace's record is read from the server once, when
 * the first job there that names dependencies is seen, and kept in step with the writes this
 * replica makes (it is the only writer). The controller reads it by name only, never lists
 * ConfigMaps.
 */
final class CleanedUpJobs {

  /** The ConfigMap's name in each namespace. */
  static final String NAME = "octomy-batch-succeeded-jobs";

  /**
   * The most entries kept per namespace; beyond it the oldest go. About 2,000 names of at most 253
   * characters stay well under a ConfigMap's 1 MiB.
   */
  static final int MAX_ENTRIES = 2000;

  /** namespace to (job name to entry), for the namespaces read so far. */
  private final Map<String, Map<String, String>> read = new ConcurrentHashMap<>();

  /** Views already built, so a pass's incremental memory sees the same object each time. */
  private final Map<JobKey, JobView> views = new ConcurrentHashMap<>();

  /** Whether the namespace's record has been read (or written) by this replica. */
  boolean isRead(String namespace) {
    return read.containsKey(namespace);
  }

  /** The namespace's record as the server holds it now (after a read or a write of ours). */
  void held(String namespace, Map<String, String> data) {
    read.put(namespace, Map.copyOf(data));
    views.keySet().removeIf(k -> k.namespace().equals(namespace) && !data.containsKey(k.name()));
  }

  /** The uid recorded for the job of this name, or null. */
  String uid(String namespace, String name) {
    String entry = read.getOrDefault(namespace, Map.of()).get(name);
    return entry == null ? null : uidOf(entry);
  }

  /** Namespace to the recorded names' entries, for the clean-up's own checks. */
  Map<String, Map<String, String>> byNamespace() {
    return read;
  }

  /**
   * A Succeeded view of every recorded job that no live job of the same name replaces: the pass
   * resolves a dependant's {@code after} against it as against a live Succeeded job. It requests
   * nothing, holds nothing and is never decided.
   */
  List<JobView> views(JobsByKey live, Instant now) {
    List<JobView> out = new ArrayList<>();
    read.forEach(
        (namespace, names) ->
            names.keySet().stream()
                .sorted()
                .forEach(
                    name -> {
                      JobKey key = new JobKey(namespace, name);
                      if (live.get(key) == null) {
                        out.add(views.computeIfAbsent(key, k -> succeeded(k, now)));
                      }
                    }));
    return out;
  }

  private static JobView succeeded(JobKey key, Instant now) {
    return new JobView(
        key.namespace(),
        key.name(),
        1,
        null,
        null,
        null,
        null,
        null,
        null,
        JobPhase.Succeeded,
        null,
        now,
        null,
        false,
        null);
  }

  /**
   * The record's data with one job added, at most {@link #MAX_ENTRIES} entries: the ones that
   * finished longest ago go first.
   */
  static Map<String, String> withEntry(
      Map<String, String> data, String name, String uid, String finishedAt) {
    Map<String, String> out = new LinkedHashMap<>(data == null ? Map.of() : data);
    out.put(name, entry(finishedAt, uid));
    if (out.size() > MAX_ENTRIES) {
      List<Map.Entry<String, String>> oldestFirst = new ArrayList<>(out.entrySet());
      oldestFirst.sort(Comparator.comparing(e -> finishedAtOf(e.getValue())));
      int excess = out.size() - MAX_ENTRIES;
      for (int i = 0; i < excess; i++) {
        out.remove(oldestFirst.get(i).getKey());
      }
    }
    return out;
  }

  /** One entry's text: when the job finished and its uid. */
  static String entry(String finishedAt, String uid) {
    return (finishedAt == null ? Times.format(Instant.EPOCH) : finishedAt) + " " + uid;
  }

  private static String uidOf(String value) {
    int space = value == null ? -1 : value.indexOf(' ');
    return space < 0 ? "" : value.substring(space + 1);
  }

  private static String finishedAtOf(String value) {
    int space = value == null ? -1 : value.indexOf(' ');
    return space < 0 ? "" : value.substring(0, space);
  }
}
