package io.octomy.batch.apiserver;

import java.util.Map;
import java.util.Optional;

/**
 * Finalizers the server puts on every new object of a resource, for a controller that runs in the
 * same process and removes them, as kube-apiserver's {@code StorageObjectInUseProtection} admission
 * plugin puts {@code kubernetes.io/pvc-protection} on every new PersistentVolumeClaim.
 *
 * <p>Why standalone mode does this for BatchJobs: the controller must have its finalizer on a job
 * before it writes the job's admission, so that the server keeps a deleted job that holds a place
 * until its run has stopped. Put on at create, it is there already, and an admission is one write
 * instead of two. A server whose controller is not in its process (a test's, a benchmark's) puts
 * none on: nothing would remove them.
 *
 * <p>The finalizer is owned in {@code managedFields} by {@link #MANAGER}, not by whoever created
 * the object: a later server-side apply by the creator (Flux, {@code kubectl apply --server-side})
 * whose configuration does not list it then leaves it alone, as it would a finalizer the controller
 * had added. A client-side {@code kubectl apply} leaves it alone too (it was never in the applied
 * configuration). A {@code kubectl replace} without it removes it; the controller then adds it
 * again before it admits the job, as it does on a cluster.
 *
 * @param byStorageKey the finalizer for each resource's storage key ({@code group/plural})
 */
public record CreateFinalizers(Map<String, String> byStorageKey) {

  /** The field manager that owns a finalizer the server put on. */
  public static final String MANAGER = "octomy-standalone";

  public CreateFinalizers {
    byStorageKey = Map.copyOf(byStorageKey);
  }

  /** None: every object is stored as it was sent. */
  public static CreateFinalizers none() {
    return new CreateFinalizers(Map.of());
  }

  /** The finalizer put on new objects of the resource stored under {@code group/plural}. */
  public static CreateFinalizers of(String group, String plural, String finalizer) {
    return new CreateFinalizers(Map.of(group + "/" + plural, finalizer));
  }

  /** The finalizer a new object of this resource gets, if any. */
  Optional<String> forNew(ResourceType type) {
    return Optional.ofNullable(byStorageKey.get(type.storageKey()));
  }
}
