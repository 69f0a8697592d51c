package io.octomy.batch.controller.aggregated;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/**
 * Who a request is from, as an aggregated API server learns it: from the API server in front, whose
 * front-proxy client certificate (already verified against the request-header CA by the TLS
 * handshake) vouches for the {@code X-Remote-User}, {@code X-Remote-Group} and {@code
 * X-Remote-Extra-*} headers; or, for a call made directly, from a bearer token the API server
 * confirms (TokenReview). Anything else is refused with 401.
 */
public final class DelegatedAuthentication {

  /** The outcome for one request. */
  public sealed interface AuthenticationOutcome {
    /** Authenticated. */
    record Known(Caller caller) implements AuthenticationOutcome {}

    /** Not authenticated; the message says why. */
    record Refused(String message) implements AuthenticationOutcome {}
  }

  /** A request's headers. */
  public interface Headers {
    /** Every value of the header, named in any case. */
    List<String> values(String name);

    /** Every header, name and value, in the order received. */
    Iterable<Map.Entry<String, String>> entries();
  }

  /** Asks the API server whose a bearer token is (TokenReview); empty when it is not valid. */
  public interface TokenReviewer {
    Optional<Caller> review(String token);
  }

  private final RequestHeaderSettings settings;
  private final TokenReviewer tokens;

  public DelegatedAuthentication(RequestHeaderSettings settings, TokenReviewer tokens) {
    this.settings = settings;
    this.tokens = tokens;
  }

  /**
   * @param client the client certificate the TLS handshake verified against the request-header CA,
   *     or null when the client sent none
   * @param headers every value of a request header, by its name in any case
   * @param authorization the Authorization header, or null
   */
  public AuthenticationOutcome authenticate(
      X509Certificate client, Headers headers, String authorization) {
    if (client != null) {
      return fromProxy(client, headers);
    }
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String token = authorization.substring(7).trim();
      if (!token.isEmpty()) {
        return tokens
            .review(token)
            .<AuthenticationOutcome>map(AuthenticationOutcome.Known::new)
            .orElseGet(() -> new AuthenticationOutcome.Refused("the bearer token is not valid"));
      }
    }
    return new AuthenticationOutcome.Refused(
        "no credentials: call through the Kubernetes API server"
            + " (kubectl get --raw /apis/visibility.batch.octomy.io/v1alpha1/...)"
            + " or send a bearer token");
  }

  private AuthenticationOutcome fromProxy(X509Certificate client, Headers headers) {
    String name = commonName(client.getSubjectX500Principal());
    if (!settings.allowedNames().isEmpty() && !settings.allowedNames().contains(name)) {
      return new AuthenticationOutcome.Refused(
          "client certificate CN " + name + " is not among the request-header allowed names");
    }
    String user = first(settings.usernameHeaders(), headers);
    if (user == null) {
      return new AuthenticationOutcome.Refused(
          "the front proxy named no user (" + String.join(", ", settings.usernameHeaders()) + ")");
    }
    String uid = first(settings.uidHeaders(), headers);
    List<String> groups = new ArrayList<>();
    for (String header : settings.groupHeaders()) {
      groups.addAll(headers.values(header));
    }
    return new AuthenticationOutcome.Known(
        new Caller(user, uid == null ? "" : uid, groups, extra(headers)));
  }

  /**
   * The extra attributes: for every header named by a prefix, the rest of its name (lower case,
   * %-escapes decoded) as the key.
   */
  private Map<String, List<String>> extra(Headers headers) {
    Map<String, List<String>> extra = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : headers.entries()) {
      String header = e.getKey();
      for (String prefix : settings.extraHeaderPrefixes()) {
        if (header.length() > prefix.length()
            && header.regionMatches(true, 0, prefix, 0, prefix.length())) {
          String key =
              URLDecoder.decode(header.substring(prefix.length()), StandardCharsets.UTF_8)
                  .toLowerCase(Locale.ROOT);
          extra.computeIfAbsent(key, k -> new ArrayList<>()).add(e.getValue());
        }
      }
    }
    return extra;
  }

  private static String first(List<String> names, Headers headers) {
    for (String header : names) {
      for (String value : headers.values(header)) {
        if (!value.isEmpty()) {
          return value;
        }
      }
    }
    return null;
  }

  static String commonName(X500Principal principal) {
    RDN[] cn = X500Name.getInstance(principal.getEncoded()).getRDNs(BCStyle.CN);
    return cn.length == 0 ? "" : IETFUtils.valueToString(cn[0].getFirst().getValue());
  }
}
