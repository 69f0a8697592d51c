package io.octomy.batch.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Finds a Kubernetes pod's cgroup v2 directory by pod UID, under either kubelet cgroup driver:
 *
 * <ul>
 *   <li>cgroupfs: {@code kubepods/pod<uid>}, {@code kubepods/burstable/pod<uid>}, {@code
 *       kubepods/besteffort/pod<uid>};
 *   <li>systemd: {@code kubepods.slice/kubepods-pod<uid_>.slice}, {@code
 *       kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice}, and the
 *       besteffort twin, where {@code uid_} is the UID with dashes turned into underscores (systemd
 *       reserves "-" as its slice separator).
 * </ul>
 *
 * <p>When none of these exists, a depth-bounded search for a directory named {@code pod<uid>} or
 * ending in {@code -pod<uid_>.slice} covers nested roots (kind puts kubepods under {@code
 * kubelet.slice}, some runtimes under a custom parent). Reads directory names only.
 */
public final class PodCgroupLocator {

  /**
   * Deep enough for kind's {@code kubelet.slice/kubelet-kubepods.slice/...-besteffort.slice/pod}.
   */
  private static final int SEARCH_DEPTH = 6;

  private PodCgroupLocator() {}

  /** The pod's cgroup directory under {@code root}, if present. */
  public static Optional<Path> find(Path root, String podUid) {
    String uid = podUid.trim();
    if (uid.isEmpty() || uid.contains("/")) {
      throw new IllegalArgumentException("not a pod UID: '" + podUid + "'");
    }
    String systemdUid = uid.replace('-', '_');
    List<Path> known =
        List.of(
            root.resolve("kubepods/pod" + uid),
            root.resolve("kubepods/burstable/pod" + uid),
            root.resolve("kubepods/besteffort/pod" + uid),
            root.resolve("kubepods.slice/kubepods-pod" + systemdUid + ".slice"),
            root.resolve(
                "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                    + systemdUid
                    + ".slice"),
            root.resolve(
                "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                    + systemdUid
                    + ".slice"));
    for (Path p : known) {
      if (Files.isDirectory(p)) {
        return Optional.of(p);
      }
    }
    return search(root, "pod" + uid, "-pod" + systemdUid + ".slice");
  }

  private static Optional<Path> search(Path root, String cgroupfsName, String systemdSuffix) {
    if (!Files.isDirectory(root)) {
      return Optional.empty();
    }
    try (Stream<Path> walk = Files.walk(root, SEARCH_DEPTH)) {
      return walk.filter(Files::isDirectory)
          .filter(
              p -> {
                String name = p.getFileName().toString();
                return name.equals(cgroupfsName) || name.endsWith(systemdSuffix);
              })
          .findFirst();
    } catch (IOException | UncheckedIOException e) {
      // A cgroup vanishing mid-walk is normal churn on a busy node; treat it as not found.
      return Optional.empty();
    }
  }
}
