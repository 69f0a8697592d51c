package io.octomy.batch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Named manifests, good and bad, that every API server of the product must answer alike: the
 * examples, edge cases that are valid, and one case per rule of the CRD schemas (types, enums,
 * patterns, sizes, CEL rules) plus object names.
 */
final class ConformanceCases {

  /** One manifest; {@code good} says whether it must be accepted. */
  record Case(String name, boolean good, String yaml) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final String TEMPLATE =
      "  template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox, command: [sh, -c, 'true']}]}}\n";

  private ConformanceCases() {}

  static List<Case> all() {
    List<Case> cases = new ArrayList<>(examples());
    cases.addAll(
        List.of(
            good(
                "job-requests-equal-limits",
                job(
                    "requests: {octomy.io/cpu-milli: 1000}",
                    "limits: {octomy.io/cpu-milli: 1000}")),
            good("job-limits-only", job(null, "limits: {example.com/su2-processes: 4}")),
            good(
                "job-nothing-declared",
                "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchJob\nmetadata: {name: NAME}\nspec:\n"
                    + TEMPLATE),
            good("job-zero-request", job("requests: {octomy.io/gpu: 0}", null)),
            good("job-dotted-after", jobSpec("after: [pre.process-41]")),
            good("job-lock-with-underscore", jobSpec("locks: [subject/Ernie_2, studio.a/b]")),
            good(
                "job-held-with-node-selector",
                jobSpec(
                    "suspend: true\n  nodeSelector: {disk: ssd, kubernetes.io/os: linux, spare:"
                        + " ''}")),
            bad("job-suspend-string", jobSpec("suspend: \"yes\"")),
            good("job-ttl-zero", jobSpec("ttlSecondsAfterFinished: 0")),
            good("job-ttl-int32", jobSpec("ttlSecondsAfterFinished: 2147483647")),
            bad("job-ttl-negative", jobSpec("ttlSecondsAfterFinished: -1")),
            bad("job-ttl-beyond-int32", jobSpec("ttlSecondsAfterFinished: 2147483648")),
            bad("job-ttl-string", jobSpec("ttlSecondsAfterFinished: 1h")),
            bad("job-ttl-fraction", jobSpec("ttlSecondsAfterFinished: 1.5")),
            good("job-array", jobSpec("array: {count: 10000, maxRunning: 10}")),
            good("job-array-of-one", jobSpec("array: {count: 1}")),
            bad("job-array-of-none", jobSpec("array: {count: 0}")),
            bad("job-array-too-large", jobSpec("array: {count: 10001}")),
            bad("job-array-count-string", jobSpec("array: {count: \"5\"}")),
            bad("job-array-count-fraction", jobSpec("array: {count: 2.5}")),
            bad("job-array-no-count", jobSpec("array: {maxRunning: 2}")),
            bad("job-array-max-running-zero", jobSpec("array: {count: 3, maxRunning: 0}")),
            bad("job-array-list", jobSpec("array: [3]")),
            bad("job-node-selector-list", jobSpec("nodeSelector: [disk]")),
            bad("job-node-selector-bad-key", jobSpec("nodeSelector: {-disk: ssd}")),
            bad("job-node-selector-bad-value", jobSpec("nodeSelector: {disk: \"fast ssd\"}")),
            bad(
                "job-node-selector-long-value",
                jobSpec("nodeSelector: {disk: " + "s".repeat(64) + "}")),
            bad("job-node-selector-number", jobSpec("nodeSelector: {cores: 16}")),
            good("node-off", node("mode: \"Off\"\n  executor: Pod")),
            bad("job-no-domain-request", job("requests: {cfd-cores: 4}", null)),
            bad("job-no-domain-limit", job(null, "limits: {cfd-cores: 4}")),
            bad("job-fraction", job("requests: {octomy.io/cpu-milli: 0.5}", null)),
            bad("job-milli-string", job("requests: {octomy.io/cpu-milli: 500m}", null)),
            bad("job-negative", job("requests: {octomy.io/cpu-milli: -1}", null)),
            bad(
                "job-request-above-limit",
                job(
                    "requests: {octomy.io/cpu-milli: 4000}",
                    "limits: {octomy.io/cpu-milli: 1000}")),
            bad("job-too-many-requests", job("requests: {" + manyResources(33) + "}", null)),
            bad("job-resources-wrong-type", jobSpec("resources: lots")),
            bad("job-after-bad-name", jobSpec("after: [Preprocess_41]")),
            bad("job-after-name-too-long", jobSpec("after: [" + "a".repeat(254) + "]")),
            bad("job-after-too-many", jobSpec("after: [" + names("j", 65) + "]")),
            bad("job-lock-bad-key", jobSpec("locks: [subject//ernie]")),
            bad("job-lock-key-too-long", jobSpec("locks: [subject/" + "x".repeat(250) + "]")),
            bad("job-locks-too-many", jobSpec("locks: [" + names("subject/s", 17) + "]")),
            bad("job-locks-wrong-type", jobSpec("locks: 5")),
            bad("job-group-upper-case", jobSpec("group: Simulator")),
            bad("job-group-too-long", jobSpec("group: " + "g".repeat(64))),
            bad("job-type-bad", jobSpec("type: mesh export")),
            bad("job-origin-too-long", jobSpec("origin: " + "o".repeat(254))),
            bad(
                "job-no-template",
                "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchJob\nmetadata: {name: NAME}\nspec: {type: x}\n"),
            bad(
                "job-bad-object-name",
                job(null, null).replace("name: NAME", "name: Bad_Name-NAME")),
            good(
                "job-env-value-from-kept-open",
                container("env: [{name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]")),
            bad("job-command-null-item", container("command: [echo, null]")),
            bad("job-args-null-item", container("command: [echo], args: [null]")),
            bad("job-env-null-item", container("command: [env], env: [null]")),
            bad(
                "job-env-value-nul",
                container("command: [env], env: [{name: A, value: \"x\\0\"}]")),
            bad("job-working-dir-nul", container("command: [pwd], workingDir: \"/tmp/a\\0b\"")),
            bad("node-bad-mode", node("mode: Turbo")),
            bad("node-bad-own-mode", node("ownMode: fast")),
            bad("node-bad-executor", node("executor: Docker")),
            bad("node-no-domain-resource", node("resources: {gpu-slots: 16}")),
            bad(
                "node-several-refused-resources",
                node("resources: {zz: 1, example.com/su2-processes: 16, gpu-slots: 16}")),
            bad("node-resource-with-line-break", node("resources: {\"gpu\\nslots\": 16}")),
            bad("node-fraction-resource", node("resources: {example.com/su2-processes: 1.5}")),
            good(
                "queue-every-field",
                queue(
                    "namespaces: [team-a, team-b]\n  namespaceSelector: {matchLabels: {team: a}}\n"
                        + "  parent: research\n  weight: 3\n  max: {octomy.io/cpu-milli: 64000}\n"
                        + "  min: {octomy.io/cpu-milli: 64000}")),
            bad(
                "queue-min-above-max",
                queue("max: {octomy.io/cpu-milli: 1000}\n  min: {octomy.io/cpu-milli: 2000}")),
            bad("queue-weight-zero", queue("weight: 0")),
            bad("queue-weight-fraction", queue("weight: 1.5")),
            bad("queue-max-fraction", queue("max: {octomy.io/cpu-milli: 0.5}")),
            bad("queue-max-no-domain", queue("max: {cpu: 4}")),
            bad("queue-min-no-domain", queue("min: {cpu: 4}")),
            bad("queue-bad-namespace", queue("namespaces: [Team_A]")),
            bad("queue-bad-parent", queue("parent: Research_1"))));
    return cases;
  }

  /** The case of that name. */
  static Case named(String name) {
    return all().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  /** Every example manifest that is an object (the policy file is not one). */
  private static List<Case> examples() {
    try (Stream<Path> files = Files.list(Path.of("examples"))) {
      List<Case> out = new ArrayList<>();
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        String text = Files.readString(f);
        if (!text.contains("apiVersion:")) {
          continue;
        }
        int i = 0;
        for (String doc : text.split("(?m)^---\\s*$")) {
          if (doc.contains("kind:")) {
            out.add(new Case("example-" + f.getFileName() + "#" + i++, true, doc));
          }
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Case good(String name, String yaml) {
    return new Case(name, true, yaml);
  }

  private static Case bad(String name, String yaml) {
    return new Case(name, false, yaml);
  }

  private static String job(String requests, String limits) {
    StringBuilder spec = new StringBuilder("  resources:\n");
    if (requests != null) {
      spec.append("    ").append(requests).append('\n');
    }
    if (limits != null) {
      spec.append("    ").append(limits).append('\n');
    }
    return jobSpec(requests == null && limits == null ? null : spec.toString().stripTrailing());
  }

  private static String jobSpec(String specLines) {
    String spec =
        specLines == null ? "" : (specLines.startsWith("  ") ? specLines : "  " + specLines) + "\n";
    return "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchJob\nmetadata: {name: NAME}\nspec:\n"
        + spec
        + TEMPLATE;
  }

  /** A job whose one container holds {@code fields} (YAML flow; {@code \\0} is a NUL). */
  private static String container(String fields) {
    return "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchJob\nmetadata: {name: NAME}\nspec:\n"
        + "  template: {spec: {restartPolicy: Never, containers: [{name: main, image: busybox, "
        + fields
        + "}]}}\n";
  }

  private static String node(String specLines) {
    return "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchNode\nmetadata: {name: NAME}\nspec:\n  "
        + specLines
        + "\n";
  }

  private static String queue(String specLines) {
    return "apiVersion: batch.octomy.io/v1alpha1\nkind: BatchQueue\nmetadata: {name: NAME}\nspec:\n  "
        + specLines
        + "\n";
  }

  private static String manyResources(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> "example.com/r" + i + ": 1")
        .collect(Collectors.joining(", "));
  }

  private static String names(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.joining(", "));
  }
}
