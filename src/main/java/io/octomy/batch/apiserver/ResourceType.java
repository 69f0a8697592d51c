package io.octomy.batch.apiserver;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One served resource (a built-in kind or a CustomResourceDefinition), with everything the server
 * needs to route, describe, render and validate it.
 *
 * @param group API group, empty for the core group
 * @param versions served versions, preferred (storage) version first
 * @param plural URL name, e.g. {@code batchjobs}
 * @param singular e.g. {@code batchjob}
 * @param kind e.g. {@code BatchJob}
 * @param namespaced whether objects live in a namespace
 * @param shortNames e.g. {@code [bj]}
 * @param categories e.g. {@code [all]}
 * @param hasStatus whether the {@code /status} subresource exists (status and spec are written
 *     apart)
 * @param printerColumns per version: the CRD's {@code additionalPrinterColumns} (may be absent)
 * @param schemas per version: the CRD's {@code openAPIV3Schema} (absent for built-ins)
 * @param selectableFields per version: the field labels of the CRD's {@code selectableFields}
 *     ({@code status.node} for {@code jsonPath: .status.node}), beside the metadata ones
 */
record ResourceType(
    String group,
    List<String> versions,
    String plural,
    String singular,
    String kind,
    boolean namespaced,
    List<String> shortNames,
    List<String> categories,
    boolean hasStatus,
    Map<String, JsonNode> printerColumns,
    Map<String, JsonNode> schemas,
    Map<String, Set<String>> selectableFields) {

  /** The identity of this resource: per group and plural, not per version. */
  String key() {
    return group + "/" + plural;
  }

  /**
   * Where objects of this resource are kept: under {@link #key}, except events.k8s.io's Events,
   * which are the core Events served in another version ({@link EventVersions}).
   */
  String storageKey() {
    return EventVersions.isEventsV1(this) ? EventVersions.STORAGE_KEY : key();
  }

  /**
   * {@code batchjobs.batch.octomy.io}, or {@code pods} for the core group, as used in error
   * messages.
   */
  String qualifiedPlural() {
    return group.isEmpty() ? plural : plural + "." + group;
  }

  String preferredVersion() {
    return versions.get(0);
  }

  /** {@code apiVersion} of objects served at the given version. */
  String apiVersion(String version) {
    return group.isEmpty() ? version : group + "/" + version;
  }

  boolean isCustom() {
    return !schemas.isEmpty();
  }
}
