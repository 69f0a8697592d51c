package io.octomy.batch.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * manifests/base is the chart rendered with its default values, one file per template, plus copies
 * of the CRDs: the chart is the one source, these files are its output.
 */
final class Manifests {

  static final Path ROOT = Path.of("manifests");
  static final Path BASE = ROOT.resolve("base");
  static final String UPDATE_PROPERTY = "octomy.updateManifests";

  private static final Pattern SOURCE =
      Pattern.compile("^# Source: [^/]+/templates/(\\S+)$", Pattern.MULTILINE);
  private static final String HEADER =
      """
      # Rendered from helm/octomy-batch with its default values (release %s, namespace %s).
      # Do not edit: change the chart, then re-render as docs/deployment.md says.
      """
          .formatted(Chart.RELEASE, Chart.NAMESPACE);

  private Manifests() {}

  /** Relative path under manifests/base to the text it must hold. */
  static Map<String, String> expected() {
    Map<String, String> files = new TreeMap<>();
    Map<String, List<String>> byTemplate = new TreeMap<>();
    for (String doc : Chart.templateText(Map.of()).split("(?m)^---\\s*$")) {
      Matcher m = SOURCE.matcher(doc);
      if (!m.find()) {
        continue;
      }
      String body = doc.substring(m.end()).strip();
      if (!body.isEmpty()) {
        byTemplate.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(body + "\n");
      }
    }
    byTemplate.forEach(
        (template, docs) -> files.put(template, HEADER + String.join("---\n", docs)));
    List<String> resources = new ArrayList<>();
    for (String crd : Chart.yamlFiles(Chart.CHART_CRDS)) {
      files.put("crds/" + crd, Chart.read(Chart.CHART_CRDS.resolve(crd)));
      resources.add("crds/" + crd);
    }
    resources.addAll(byTemplate.keySet());
    StringBuilder k =
        new StringBuilder(HEADER)
            .append(
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n");
    resources.forEach(r -> k.append("  - ").append(r).append('\n'));
    files.put("kustomization.yaml", k.toString());
    return files;
  }

  /** What manifests/base holds now, same shape as {@link #expected()}. */
  static Map<String, String> committed() {
    Map<String, String> files = new TreeMap<>();
    if (!Files.isDirectory(BASE)) {
      return files;
    }
    try (Stream<Path> s = Files.walk(BASE)) {
      s.filter(Files::isRegularFile)
          .forEach(p -> files.put(BASE.relativize(p).toString().replace('\\', '/'), Chart.read(p)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** Replaces manifests/base with a fresh render. */
  static void write(Map<String, String> files) {
    try {
      if (Files.isDirectory(BASE)) {
        try (Stream<Path> s = Files.walk(BASE)) {
          for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
      for (Map.Entry<String, String> f : files.entrySet()) {
        Path p = BASE.resolve(f.getKey());
        Files.createDirectories(p.getParent());
        Files.writeString(p, f.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
