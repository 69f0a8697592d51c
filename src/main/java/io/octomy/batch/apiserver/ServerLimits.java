package io.octomy.batch.apiserver;

import java.time.Duration;

/**
 * The bounds of the HTTP side, each the value a real kube-apiserver uses where it has one, so a
 * client that works here works there and no client can exhaust the process.
 *
 * @param maxBodyBytes request bodies above this are answered 413 (kube-apiserver: 3 MiB)
 * @param maxHeaderBytes request headers above this are refused (Go's server: 1 MiB)
 * @param maxReadOnlyInFlight non-mutating requests served or queued at once; more get 429
 *     (kube-apiserver {@code --max-requests-inflight}: 400)
 * @param maxMutatingInFlight mutating requests likewise (kube-apiserver {@code
 *     --max-mutating-requests-inflight}: 200)
 * @param headerTimeout a new connection must have sent its first request's headers by then
 *     (kube-apiserver's ReadHeaderTimeout: 32 s)
 * @param idleTimeout a connection with no request under way is closed after this (kube-apiserver's
 *     IdleTimeout: 90 s)
 * @param watchBufferBytes bytes a watch may have queued for a client that does not read, beyond its
 *     initial events; past it the watch's connection is dropped and the client watches again from
 *     its last version
 */
public record ServerLimits(
    int maxBodyBytes,
    int maxHeaderBytes,
    int maxReadOnlyInFlight,
    int maxMutatingInFlight,
    Duration headerTimeout,
    Duration idleTimeout,
    long watchBufferBytes) {

  public static ServerLimits defaults() {
    return new ServerLimits(
        3 * 1024 * 1024,
        1024 * 1024,
        400,
        200,
        Duration.ofSeconds(32),
        Duration.ofSeconds(90),
        16L * 1024 * 1024);
  }

  public ServerLimits withTimeouts(Duration header, Duration idle) {
    return new ServerLimits(
        maxBodyBytes,
        maxHeaderBytes,
        maxReadOnlyInFlight,
        maxMutatingInFlight,
        header,
        idle,
        watchBufferBytes);
  }

  public ServerLimits withInFlight(int readOnly, int mutating) {
    return new ServerLimits(
        maxBodyBytes,
        maxHeaderBytes,
        readOnly,
        mutating,
        headerTimeout,
        idleTimeout,
        watchBufferBytes);
  }
}
