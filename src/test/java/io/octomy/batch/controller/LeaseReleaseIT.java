package io.octomy.batch.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.octomy.batch.realcluster.RealCluster;
import io.octomy.batch.vocabulary.Labels;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaseRelease} on the real kube-apiserver: the Lease this replica holds is left without a
 * holder, as client-go's {@code ReleaseOnCancel} leaves it; a Lease another replica holds, or took
 * after this one read it, is left as it is.
 */
class LeaseReleaseIT {

  private static final String NAME = Labels.COMPONENT;

  private final RealCluster cluster = RealCluster.get();
  private final KubernetesClient admin = cluster.admin();
  private final String ns = cluster.namespace("lease-release");

  private LeaseRelease releaseAs(String identity) {
    return new LeaseRelease(admin, ns, NAME, identity);
  }

  private Lease create(String holder) {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    return admin
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(NAME)
                .withNamespace(ns)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withAcquireTime(now)
                .withRenewTime(now)
                .withLeaseTransitions(3)
                .endSpec()
                .build())
        .create();
  }

  private Lease read() {
    return admin.leases().inNamespace(ns).withName(NAME).get();
  }

  @Test
  void theLeaseThisReplicaHoldsIsLeftWithoutAHolder() {
    create("replica-a");

    assertThat(releaseAs("replica-a").release()).isTrue();

    LeaseSpec spec = read().getSpec();
    assertThat(spec.getHolderIdentity()).isEmpty();
    assertThat(spec.getLeaseDurationSeconds()).isEqualTo(1);
    assertThat(spec.getLeaseTransitions()).as("the next holder counts its take-over").isEqualTo(3);
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    assertThat(spec.getRenewTime()).isCloseTo(now, within(10, ChronoUnit.SECONDS));
    assertThat(spec.getAcquireTime()).isCloseTo(now, within(10, ChronoUnit.SECONDS));
  }

  @Test
  void aLeaseAnotherReplicaHoldsIsLeftAsItIs() {
    String version = create("replica-b").getMetadata().getResourceVersion();

    assertThat(releaseAs("replica-a").release()).isFalse();

    assertThat(read().getMetadata().getResourceVersion()).isEqualTo(version);
  }

  @Test
  void aLeaseTakenAfterItWasReadIsNotOverwritten() {
    create("replica-a");
    Lease read = read();
    // Another replica takes the Lease between this replica's read and its write.
    Lease taken = read();
    taken.getSpec().setHolderIdentity("replica-b");
    taken.getSpec().setLeaseTransitions(4);
    admin.resource(taken).update();

    assertThat(releaseAs("replica-a").release(read)).as("refused with 409, not thrown").isFalse();

    LeaseSpec spec = read().getSpec();
    assertThat(spec.getHolderIdentity()).isEqualTo("replica-b");
    assertThat(spec.getLeaseDurationSeconds()).isEqualTo(15);
    assertThat(spec.getLeaseTransitions()).isEqualTo(4);
  }

  @Test
  void aFailureIsOnlyLogged() {
    create("replica-a");
    KubernetesClient closed =
        new KubernetesClientBuilder().withConfig(cluster.adminConfig()).build();
    closed.close();

    assertThat(new LeaseRelease(closed, ns, NAME, "replica-a").release()).isFalse();

    assertThat(read().getSpec().getHolderIdentity()).isEqualTo("replica-a");
  }

  @Test
  void withoutALeaseThereIsNothingToRelease() {
    assertThat(releaseAs("replica-a").release()).isFalse();

    assertThat(read()).isNull();
  }
}
