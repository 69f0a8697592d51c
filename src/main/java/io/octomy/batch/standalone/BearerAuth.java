package io.octomy.batch.standalone;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The one credential of the embedded server: a random bearer token, kept only in the 0600
 * kubeconfig and identity file ({@link ServerIdentityFile}). Every request must carry {@code
 * Authorization: Bearer <token>}.
 */
final class BearerAuth {

  private final byte[] expected;
  private final String token;

  BearerAuth(String token) {
    this.token = token;
    this.expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
  }

  /** 32 bytes from SecureRandom, URL-safe base64 (43 characters). */
  static BearerAuth random() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    return new BearerAuth(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
  }

  String token() {
    return token;
  }

  /** Constant-time check of an Authorization header (which may be null). */
  boolean allows(String authorization) {
    return authorization != null
        && MessageDigest.isEqual(expected, authorization.trim().getBytes(StandardCharsets.UTF_8));
  }
}
