package io.octomy.batch.vocabulary;

/**
 * The names the controller and the agent write under, as their clients' User-Agent: an API server
 * takes a write's field manager from it (up to the first '/'), so {@code metadata.managedFields}
 * and a server-side apply's conflict ("conflict with \"octomy-batch-agent\": .spec.mode") name the
 * component, not the client library all of them share.
 */
public final class FieldManagers {

  /** The controller: job statuses, its finalizer, Pods, profiles, Events, the Lease. */
  public static final String CONTROLLER = Labels.COMPONENT;

  /** A node agent: its BatchNode (created with a spec when missing; then only its status). */
  public static final String AGENT = "octomy-batch-agent";

  private FieldManagers() {}

  /** The User-Agent header that names {@code manager}. */
  public static String userAgent(String manager) {
    return manager + "/v1alpha1";
  }
}
