package io.octomy.batch.apiserver;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * The credentials of the embedded server, random bearer tokens. The user's is kept only in the 0600
 * kubeconfig and identity file ({@link ServerIdentityFile}); the in-process one, for clients in the
 * same process that come over HTTPS ({@link EmbeddedApiServer#clientConfig}), is drawn at each
 * start and never written anywhere. Every request over HTTPS must carry {@code Authorization:
 * Bearer <token>} with one of them; which one decides the order in which it is served ({@link
 * RequestWorkers}). The controller and agent of standalone mode come without HTTP ({@link
 * InMemoryHttpClient}) and are served as holders of the in-process credential.
 */
final class BearerAuth {

  /** Who a request comes from, by the token it carries. */
  enum Credential {
    /** The controller and agent of this process, and other clients in it. */
    IN_PROCESS,
    /** Anyone holding the kubeconfig. */
    USER
  }

  private final String token;
  private final byte[] userHeader;
  private final String inProcessToken;
  private final byte[] inProcessHeader;

  BearerAuth(String token) {
    this.token = token;
    this.userHeader = header(token);
    this.inProcessToken = randomToken();
    this.inProcessHeader = header(inProcessToken);
  }

  /** A new user token (see {@link #randomToken}). */
  static BearerAuth random() {
    return new BearerAuth(randomToken());
  }

  /** 32 bytes from SecureRandom, URL-safe base64 (43 characters). */
  private static String randomToken() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static byte[] header(String token) {
    return ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
  }

  /** The user's token, the one in the kubeconfig. */
  String token() {
    return token;
  }

  /** The token of this process's own clients; it lives as long as this object. */
  String inProcessToken() {
    return inProcessToken;
  }

  /**
   * Which credential an Authorization header (which may be null) carries, compared in constant
   * time; empty when it carries none.
   */
  Optional<Credential> credential(String authorization) {
    if (authorization == null) {
      return Optional.empty();
    }
    byte[] given = authorization.trim().getBytes(StandardCharsets.UTF_8);
    boolean user = MessageDigest.isEqual(userHeader, given);
    boolean inProcess = MessageDigest.isEqual(inProcessHeader, given);
    if (inProcess) {
      return Optional.of(Credential.IN_PROCESS);
    }
    return user ? Optional.of(Credential.USER) : Optional.empty();
  }
}
