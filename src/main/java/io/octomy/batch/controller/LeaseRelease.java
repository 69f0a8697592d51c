package io.octomy.batch.controller;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the Lease up on a graceful stop, as client-go's {@code ReleaseOnCancel} does, so that a
 * standby leads at its next retry rather than once the whole Lease duration has run out. JOSDK
 * 5.2.3 builds its elector without release-on-cancel and gives no access to it.
 *
 * <p>Call it only once this replica decides nothing more and its elector has stopped renewing: a
 * standby may lead the moment the Lease is released.
 */
final class LeaseRelease {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseRelease.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final String identity;

  LeaseRelease(KubernetesClient client, String namespace, String name, String identity) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.identity = identity;
  }

  /**
   * Releases the Lease if it still names this replica; true when it did. Never throws, whatever
   * fails (a refusal, the server gone, a client already closed): a Lease not released runs out
   * after its duration, as if the process had been killed.
   */
  boolean release() {
    try {
      return release(client.leases().inNamespace(namespace).withName(name).get());
    } catch (RuntimeException e) {
      return failed(e);
    }
  }

  /**
   * Releases {@code read}, the Lease as last read, if it names this replica. The update carries the
   * resourceVersion read, so the server refuses it (409) when anyone wrote the Lease since: a Lease
   * another replica has taken meanwhile is never overwritten.
   */
  boolean release(Lease read) {
    if (read == null || read.getSpec() == null) {
      return false;
    }
    LeaseSpec spec = read.getSpec();
    if (!identity.equals(spec.getHolderIdentity())) {
      LOG.info("the Lease {}/{} is not held by {}: nothing to release", namespace, name, identity);
      return false;
    }
    // Wall-clock time, not the admission clock: the other replicas' electors compare it with
    // theirs.
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    // What client-go writes: no holder, and a duration a server accepts (it must be positive).
    // The transitions stay: the next holder counts its own take-over.
    spec.setHolderIdentity("");
    spec.setLeaseDurationSeconds(1);
    spec.setAcquireTime(now);
    spec.setRenewTime(now);
    try {
      client.resource(read).update();
    } catch (RuntimeException e) {
      return failed(e);
    }
    LOG.info("released the Lease {}/{} held as {}", namespace, name, identity);
    return true;
  }

  private boolean failed(RuntimeException e) {
    LOG.warn(
        "could not release the Lease {}/{} ({}): a standby leads once it runs out",
        namespace,
        name,
        e.toString());
    return false;
  }
}
