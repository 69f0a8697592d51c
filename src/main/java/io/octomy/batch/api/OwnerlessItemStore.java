package io.octomy.batch.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.stream.Stream;

/**
 * An informer cache that keeps objects without their {@code metadata.managedFields}.
 *
 * <p>Why: the field owners of a BatchJob are the largest part of it (one entry per writer, each a
 * tree of every field it set), and neither the controller nor the agent reads them. With 20,000
 * jobs cached by both in one standalone process they were a third of the heap. Writes are not
 * affected: a status write ignores the owners it carries, and an update that carries none keeps the
 * stored ones (on kube-apiserver and on the embedded server alike).
 *
 * <p>The object is stripped as the informer stores it, so handlers and cache readers all see the
 * same, ownerless object.
 */
public final class OwnerlessItemStore<T extends HasMetadata> implements ItemStore<T> {

  private final BasicItemStore<T> delegate = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);

  @Override
  public String getKey(T obj) {
    return delegate.getKey(obj);
  }

  @Override
  public T put(String key, T obj) {
    if (obj.getMetadata() != null) {
      obj.getMetadata().setManagedFields(null);
    }
    return delegate.put(key, obj);
  }

  @Override
  public T remove(String key) {
    return delegate.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return delegate.keySet();
  }

  @Override
  public Stream<T> values() {
    return delegate.values();
  }

  @Override
  public int size() {
    return delegate.size();
  }

  @Override
  public T get(String key) {
    return delegate.get(key);
  }
}
