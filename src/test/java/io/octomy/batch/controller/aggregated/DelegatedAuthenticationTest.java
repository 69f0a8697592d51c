package io.octomy.batch.controller.aggregated;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.tls.SelfSignedCertificate;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Who a request is from: the front proxy's headers are believed only with its certificate and only
 * for the names the API server allows; a bearer token only as the API server's TokenReview confirms
 * it; anything else is refused with a sentence saying how to call.
 */
class DelegatedAuthenticationTest {

  private static final RequestHeaderSettings SETTINGS =
      RequestHeaderSettings.from(
          Map.of(
              "requestheader-client-ca-file", "-----BEGIN CERTIFICATE-----\n...",
              "requestheader-allowed-names", "[\"front-proxy-client\"]",
              "requestheader-username-headers", "[\"X-Remote-User\"]",
              "requestheader-uid-headers", "[\"X-Remote-Uid\"]",
              "requestheader-group-headers", "[\"X-Remote-Group\"]",
              "requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]"));

  private static final Caller ROBOT = new Caller("robot", "u-1", List.of("bots"), Map.of());

  private final DelegatedAuthentication authentication =
      new DelegatedAuthentication(
          SETTINGS, token -> token.equals("good") ? Optional.of(ROBOT) : Optional.empty());

  @Test
  void theFrontProxyVouchesForUserGroupsAndExtra() {
    var outcome =
        authentication.authenticate(
            certificate("front-proxy-client"),
            headers(
                "X-Remote-User", "alice",
                "X-Remote-Uid", "a-7",
                "X-Remote-Group", "team-a",
                "x-remote-group", "system:authenticated",
                "X-Remote-Extra-Scopes", "read",
                "X-Remote-Extra-Acme.com%2fproject", "solver"),
            null);
    assertThat(outcome)
        .isEqualTo(
            new DelegatedAuthentication.AuthenticationOutcome.Known(
                new Caller(
                    "alice",
                    "a-7",
                    List.of("team-a", "system:authenticated"),
                    Map.of("scopes", List.of("read"), "acme.com/project", List.of("solver")))));
  }

  @Test
  void aCertificateWithAnotherNameIsNotBelieved() {
    var outcome =
        authentication.authenticate(
            certificate("someone-else"), headers("X-Remote-User", "system:admin"), null);
    assertThat(outcome)
        .isEqualTo(
            new DelegatedAuthentication.AuthenticationOutcome.Refused(
                "client certificate CN someone-else is not among the request-header allowed"
                    + " names"));
  }

  @Test
  void theFrontProxyMustNameAUser() {
    var outcome =
        authentication.authenticate(
            certificate("front-proxy-client"), headers("X-Remote-Group", "team-a"), null);
    assertThat(outcome)
        .isEqualTo(
            new DelegatedAuthentication.AuthenticationOutcome.Refused(
                "the front proxy named no user (X-Remote-User)"));
  }

  @Test
  void headersWithoutTheCertificateCountForNothing() {
    var outcome = authentication.authenticate(null, headers("X-Remote-User", "alice"), null);
    assertThat(outcome)
        .isEqualTo(
            new DelegatedAuthentication.AuthenticationOutcome.Refused(
                "no credentials: call through the Kubernetes API server (kubectl get --raw"
                    + " /apis/visibility.batch.octomy.io/v1alpha1/...) or send a bearer token"));
  }

  @Test
  void aBearerTokenCountsAsTheApiServerReviewsIt() {
    assertThat(authentication.authenticate(null, headers(), "Bearer good"))
        .isEqualTo(new DelegatedAuthentication.AuthenticationOutcome.Known(ROBOT));
    assertThat(authentication.authenticate(null, headers("X-Remote-User", "alice"), "Bearer bad"))
        .isEqualTo(
            new DelegatedAuthentication.AuthenticationOutcome.Refused(
                "the bearer token is not valid"));
  }

  @Test
  void withoutAllowedNamesAnyCertificateOfTheCaCounts() {
    var open =
        new DelegatedAuthentication(
            RequestHeaderSettings.from(
                Map.of(
                    "requestheader-client-ca-file", "pem",
                    "requestheader-username-headers", "[\"X-Remote-User\"]")),
            token -> Optional.empty());
    assertThat(open.authenticate(certificate("anyone"), headers("X-Remote-User", "bob"), null))
        .isEqualTo(
            new DelegatedAuthentication.AuthenticationOutcome.Known(
                new Caller("bob", "", List.of(), Map.of())));
  }

  /**
   * A certificate with the CN; signed by itself (the TLS handshake checks the issuer, not this).
   */
  private static X509Certificate certificate(String cn) {
    SelfSignedCertificate c =
        SelfSignedCertificate.create(cn, List.of("client"), List.of(), Duration.ofDays(1));
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(
                  new ByteArrayInputStream(c.certificatePem().getBytes(StandardCharsets.US_ASCII)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static DelegatedAuthentication.Headers headers(String... namesAndValues) {
    List<Map.Entry<String, String>> entries = new ArrayList<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      entries.add(new AbstractMap.SimpleEntry<>(namesAndValues[i], namesAndValues[i + 1]));
    }
    return new DelegatedAuthentication.Headers() {
      @Override
      public List<String> values(String name) {
        return entries.stream()
            .filter(e -> e.getKey().equalsIgnoreCase(name))
            .map(Map.Entry::getValue)
            .toList();
      }

      @Override
      public Iterable<Map.Entry<String, String>> entries() {
        return entries;
      }
    };
  }
}
