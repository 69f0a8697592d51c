package io.octomy.batch.api;

/**
 * Schema stand-in for the pod template: an object whose fields the CRD leaves open ({@code
 * x-kubernetes-preserve-unknown-fields}), so the BatchJob CRD stays small enough for a plain {@code
 * kubectl apply}. The Pod itself is validated by the API server when it is created.
 */
final class OpenObject {
  private OpenObject() {}
}
