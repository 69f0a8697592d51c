package io.octomy.batch.api;

/** The API group and version every custom resource of octomy-batch is served under. */
public final class Api {
  public static final String GROUP = "batch.octomy.io";
  public static final String VERSION = "v1alpha1";

  private Api() {}
}
