package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.vocabulary.ResourceNames;
import org.junit.jupiter.api.Test;

/**
 * The server states Kubernetes' DNS-1123 name rules itself rather than borrowing the product's; the
 * two texts must stay the same, or a name the server stores could be one the product refuses.
 */
class DnsNameRulesTest {

  @Test
  void theServerAndTheProductStateTheSameDnsLabel() {
    assertThat(CommitGuard.DNS_LABEL_REGEX).isEqualTo(ResourceNames.DNS_LABEL_REGEX);
  }

  @Test
  void theServerAndTheProductStateTheSameDnsSubdomain() {
    assertThat(CommitGuard.DNS_SUBDOMAIN_REGEX).isEqualTo(ResourceNames.DNS_SUBDOMAIN_REGEX);
  }
}
