package io.octomy.batch.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Good and bad specs in, every problem out, each saying what to write instead. */
class SpecValidatorTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final String TEMPLATE =
      "template: {spec: {containers: [{name: main, image: busybox, command: [sh, -c, 'echo hi']}]}}\n";

  static Stream<Arguments> valid() {
    return Stream.of(
        Arguments.of("BestEffort: only a template", TEMPLATE),
        Arguments.of(
            "Guaranteed with an extended resource",
            TEMPLATE
                + "resources: {requests: {octomy.io/cpu-milli: 2000, example.com/su2-processes: 4}, limits: {octomy.io/cpu-milli: 2000, example.com/su2-processes: 4}}"),
        Arguments.of(
            "Burstable, request below limit",
            TEMPLATE
                + "resources: {requests: {octomy.io/cpu-milli: 500}, limits: {octomy.io/cpu-milli: 4000}}"),
        Arguments.of("zero quantities", TEMPLATE + "resources: {requests: {octomy.io/gpu: 0}}"),
        Arguments.of(
            "every optional field",
            TEMPLATE
                + "type: mesh-export\ngroup: simulator\norigin: ws-7\nafter: [preprocess-41, prep.v2]\nlocks: [subject/ernie, license]\n"
                + "resources: {requests: {banter.io/hashes-per-second: 500000}}"),
        Arguments.of(
            "held, with a nodeSelector of plain and prefixed keys and an empty value",
            TEMPLATE
                + "suspend: true\nnodeSelector: {disk: ssd, example.com/licence: fluent-2024,"
                + " kubernetes.io/os: linux, spare: ''}"),
        Arguments.of("released", TEMPLATE + "suspend: false\nnodeSelector: {}"),
        Arguments.of("deleted as soon as it ends", TEMPLATE + "ttlSecondsAfterFinished: 0"),
        Arguments.of(
            "the longest clean-up delay, an int32",
            TEMPLATE + "ttlSecondsAfterFinished: 2147483647"),
        Arguments.of("an array", TEMPLATE + "array: {count: 10000, maxRunning: 10}"),
        Arguments.of("an array of one, no maxRunning", TEMPLATE + "array: {count: 1}"),
        Arguments.of("a gang of four", TEMPLATE + "replicas: 4"),
        Arguments.of("the largest gang", TEMPLATE + "replicas: 1000"),
        Arguments.of(
            "the largest quantity, 2^53 - 1",
            TEMPLATE + "resources: {requests: {example.com/x: 9007199254740991}}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void acceptsGoodSpecs(String name, String yaml) throws Exception {
    assertThat(SpecValidator.problems(YAML.readTree(yaml))).isEmpty();
  }

  static Stream<Arguments> invalid() {
    String bigMap =
        IntStream.range(0, 33)
            .mapToObj(i -> "example.com/r" + i + ": 1")
            .collect(Collectors.joining(", ", "{", "}"));
    String manyAfter =
        IntStream.range(0, 65).mapToObj(i -> "j" + i).collect(Collectors.joining(", ", "[", "]"));
    String longName = "example.com/" + "x".repeat(400);
    return Stream.of(
        bad(
            "resource name without a domain",
            TEMPLATE + "resources: {requests: {cfd-cores: 4}}",
            "resource name 'cfd-cores' has no domain; write it as example.com/cfd-cores"),
        bad(
            "a fraction",
            TEMPLATE + "resources: {requests: {octomy.io/cpu-milli: 0.5}}",
            "spec.resources.requests['octomy.io/cpu-milli'] is 0.5, a fraction; quantities are whole numbers"),
        bad(
            "a quantity string like Kubernetes writes",
            TEMPLATE + "resources: {limits: {octomy.io/cpu-milli: 500m}}",
            "is the string \"500m\"; quantities are plain whole numbers with the unit in the name"),
        bad(
            "request above limit",
            TEMPLATE
                + "resources: {requests: {octomy.io/cpu-milli: 4000}, limits: {octomy.io/cpu-milli: 2000}}",
            "spec.resources.requests['octomy.io/cpu-milli'] is 4000, above its limit 2000; lower the request to at most 2000 or raise the limit to at least 4000"),
        bad(
            "negative quantity",
            TEMPLATE + "resources: {requests: {octomy.io/cpu-milli: -1}}",
            "spec.resources.requests['octomy.io/cpu-milli'] is -1; quantities are whole numbers >= 0"),
        bad(
            "quantity beyond 64 bits",
            TEMPLATE + "resources: {requests: {example.com/x: 99999999999999999999}}",
            "too large; quantities are at most 9007199254740991"),
        bad(
            "quantity above 2^53 - 1",
            TEMPLATE + "resources: {requests: {example.com/x: 9007199254740992}}",
            "9007199254740992, too large; quantities are at most 9007199254740991"),
        bad(
            "domain without a dot",
            TEMPLATE + "resources: {requests: {example/cores: 1}}",
            "the domain 'example' of resource name 'example/cores' has no dot; write a DNS domain like example.com"),
        bad(
            "too many resource names",
            TEMPLATE + "resources: {requests: " + bigMap + "}",
            "spec.resources.requests has 33 resource names; at most 32 are allowed"),
        bad(
            "a resource name too long",
            TEMPLATE + "resources: {requests: {" + longName + ": 1}}",
            "is 400 characters long; at most 63 are allowed after the '/'"),
        bad(
            "too many dependencies",
            TEMPLATE + "after: " + manyAfter,
            "spec.after has 65 entries; at most 64 are allowed"),
        bad(
            "dependency that is not a name",
            TEMPLATE + "after: [Pre_Process]",
            "spec.after[0] 'Pre_Process' is not a BatchJob name"),
        bad(
            "after as a string",
            TEMPLATE + "after: preprocess-41",
            "spec.after is a string; write a list, like [preprocess-41]"),
        bad(
            "bad lock key",
            TEMPLATE + "locks: ['subject//ernie']",
            "spec.locks[0] 'subject//ernie' is not a lock key"),
        bad(
            "suspend as a string",
            TEMPLATE + "suspend: 'yes'",
            "spec.suspend is a string; write true (held) or false"),
        bad(
            "ttlSecondsAfterFinished negative",
            TEMPLATE + "ttlSecondsAfterFinished: -1",
            "spec.ttlSecondsAfterFinished is the number -1; write a whole number of seconds from 0"
                + " to 2147483647, like 86400"),
        bad(
            "ttlSecondsAfterFinished as a duration text",
            TEMPLATE + "ttlSecondsAfterFinished: 1h",
            "spec.ttlSecondsAfterFinished is a string; write a whole number of seconds"),
        bad(
            "ttlSecondsAfterFinished beyond an int32",
            TEMPLATE + "ttlSecondsAfterFinished: 2147483648",
            "spec.ttlSecondsAfterFinished is the number 2147483648; write a whole number"),
        bad(
            "nodeSelector as a list",
            TEMPLATE + "nodeSelector: [disk=ssd]",
            "spec.nodeSelector is a list; write a mapping of node labels, like {disk: ssd}"),
        bad(
            "nodeSelector key that is not a label key",
            TEMPLATE + "nodeSelector: {'-disk': ssd}",
            "spec.nodeSelector['-disk'] is not a label key"),
        bad(
            "nodeSelector key with an empty prefix",
            TEMPLATE + "nodeSelector: {'/disk': ssd}",
            "spec.nodeSelector['/disk'] is not a label key"),
        bad(
            "nodeSelector value that is not a label value",
            TEMPLATE + "nodeSelector: {disk: 'fast ssd'}",
            "spec.nodeSelector['disk'] 'fast ssd' is not a label value"),
        bad(
            "nodeSelector value over 63 characters",
            TEMPLATE + "nodeSelector: {disk: " + "s".repeat(64) + "}",
            "is not a label value; use at most 63 letters"),
        bad(
            "nodeSelector value as a number",
            TEMPLATE + "nodeSelector: {cores: 16}",
            "spec.nodeSelector['cores'] is the number 16; write the label's value as a string"),
        bad(
            "bad group",
            TEMPLATE + "group: Simulator!",
            "spec.group 'Simulator!' is not a valid name"),
        bad(
            "misspelt field",
            TEMPLATE + "resource: {requests: {octomy.io/cpu-milli: 1}}",
            "spec.resource is not a field of spec"),
        bad(
            "misspelt requests",
            TEMPLATE + "resources: {request: {octomy.io/cpu-milli: 1}}",
            "spec.resources.request is not a field of spec.resources"),
        bad(
            "no template",
            "type: x",
            "spec.template is missing; write a pod template with at least one container"),
        bad(
            "template without containers",
            "template: {spec: {}}",
            "spec.template has no containers"),
        bad(
            "container with neither image nor command",
            "template: {spec: {containers: [{name: main}]}}",
            "has neither an image nor a command"),
        bad("spec is a list", "[1, 2]", "spec is a list; write it as a mapping"),
        bad(
            "an array of none",
            TEMPLATE + "array: {count: 0}",
            "spec.array.count is (the number 0); write a whole number from 1 to 10000"),
        bad(
            "too large an array",
            TEMPLATE + "array: {count: 10001}",
            "spec.array.count is (the number 10001); write a whole number from 1 to 10000"),
        bad(
            "an array count in words",
            TEMPLATE + "array: {count: five}",
            "spec.array.count is 'five'"),
        bad(
            "an array without a count",
            TEMPLATE + "array: {maxRunning: 2}",
            "spec.array.count is missing; write the number of items, like 100"),
        bad(
            "an array running none",
            TEMPLATE + "array: {count: 3, maxRunning: 0}",
            "spec.array.maxRunning is (the number 0)"),
        bad(
            "an array misspelt",
            TEMPLATE + "array: {count: 3, parallelism: 2}",
            "spec.array.parallelism is not a field of spec.array"),
        bad(
            "an array as a number",
            TEMPLATE + "array: 5",
            "spec.array is the number 5; write a" + " mapping like {count: 100, maxRunning: 10}"),
        bad(
            "a gang of none",
            TEMPLATE + "replicas: 0",
            "spec.replicas is (the number 0); write a whole number from 1 to 1000"),
        bad(
            "a gang past the bound",
            TEMPLATE + "replicas: 1001",
            "spec.replicas is (the number 1001); write a whole number from 1 to 1000"),
        bad("a gang in words", TEMPLATE + "replicas: four", "spec.replicas is 'four'"));
  }

  private static Arguments bad(String name, String yaml, String expected) {
    return Arguments.of(name, yaml, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void explainsEachProblem(String name, String yaml, String expected) throws Exception {
    List<String> problems = SpecValidator.problems(YAML.readTree(yaml));
    assertThat(problems).anySatisfy(p -> assertThat(p).contains(expected));
  }

  static Stream<Arguments> everyManifest() {
    Stream<Arguments> templates =
        Stream.of(
                "template: {spec: {containers: [{name: main, command: []}]}}",
                "template: {spec: {containers: [{name: main, image: ''}]}}",
                "template: {spec: {containers: [{name: main, command: [sh]}, {name: b}]}}",
                "template: {spec: {containers: [{name: main}, {name: b, image: x}]}}",
                "template: {spec: {containers: []}}",
                "template: {spec: {}}",
                "template: {}",
                "template: null",
                "template: [x]",
                "template: 'run it'",
                "template: {spec: {containers: [null]}}",
                "template: {spec: {containers: {main: {image: x}}}}",
                "type: x")
            .map(yaml -> Arguments.of(yaml, yaml));
    return Stream.of(valid(), invalid(), templates)
        .flatMap(s -> s)
        .map(a -> Arguments.of(a.get()[0], a.get()[1]));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyManifest")
  void aTypedSpecHasTheProblemsOfItsManifest(String name, String yaml) throws Exception {
    JsonNode raw = YAML.readTree(yaml);
    BatchJobSpec typed = Serialization.jsonMapper().treeToValue(raw, BatchJobSpec.class);
    assertThat(SpecValidator.problems(typed)).isEqualTo(SpecValidator.problems(raw));
  }

  /** Containers no process can start with, as JSON (YAML cannot write a NUL character). */
  static Stream<Arguments> unlaunchable() {
    return Stream.of(
        Arguments.of("\"env\":[null]", "containers[0].env[0] is empty (null); write {name:"),
        Arguments.of("\"args\":[null]", "containers[0].args[0] is empty (null); write a string"),
        Arguments.of(
            "\"command\":[\"echo\",null]",
            "containers[0].command[1] is empty (null); write a string"),
        Arguments.of(
            "\"workingDir\":\"/tmp/a\\u0000b\"",
            "containers[0].workingDir holds a NUL character (\\u0000), which no command,"
                + " variable or path can hold; remove it"),
        Arguments.of(
            "\"env\":[{\"name\":\"A\",\"value\":\"x\\u0000\"}]",
            "containers[0].env[0].value holds a NUL character"),
        Arguments.of(
            "\"command\":[\"echo\",\"a\\u0000\"]",
            "containers[0].command[1] holds a NUL character"),
        Arguments.of(
            "\"env\":[{\"name\":\"A=B\",\"value\":\"x\"}]", "containers[0].env[0].name holds '='"),
        Arguments.of("\"env\":[{\"value\":\"x\"}]", "containers[0].env[0] has no name"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unlaunchable")
  void aContainerNoProcessCanStartWithIsAProblemTypedOrNot(String fields, String expected)
      throws Exception {
    JsonNode raw =
        new ObjectMapper()
            .readTree(
                "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\","
                    + "\"command\":[\"true\"],"
                    + fields
                    + "}]}}}");
    BatchJobSpec typed = Serialization.jsonMapper().treeToValue(raw, BatchJobSpec.class);
    for (List<String> problems :
        List.of(SpecValidator.problems(raw), SpecValidator.problems(typed))) {
      assertThat(problems)
          .singleElement()
          .asString()
          .startsWith("spec.template.spec.")
          .contains(expected);
    }
  }

  @Test
  void reportsEveryProblemNotJustTheFirst() throws Exception {
    JsonNode spec =
        YAML.readTree(
            TEMPLATE
                + "resources: {requests: {cfd-cores: 4, octomy.io/cpu-milli: 0.5, octomy.io/memory-bytes: -3}}\nlocks: ['']");
    assertThat(SpecValidator.problems(spec)).hasSize(4);
  }

  @Test
  void missingSpecIsAProblem() {
    assertThat(SpecValidator.problems((JsonNode) null))
        .containsExactly("spec is missing; write a spec with at least a template (what to run).");
  }

  @Test
  void typedSpecIsCheckedThroughItsJson() {
    BatchJobSpec spec = new BatchJobSpec();
    spec.setResources(new Resources(Map.of("cfd-cores", 1L), null));
    assertThat(SpecValidator.problems(spec))
        .contains("resource name 'cfd-cores' has no domain; write it as example.com/cfd-cores.")
        .anySatisfy(p -> assertThat(p).startsWith("spec.template is missing"));
  }

  @Test
  void malformedQuantitiesSurviveTypedReadingAndAreReported() throws Exception {
    // An API server that skips schema validation hands the controller these as they were written.
    String json =
        "{\"template\": {\"spec\": {\"containers\": [{\"image\": \"x\"}]}},"
            + " \"resources\": {\"requests\": {\"octomy.io/cpu-milli\": 0.5, \"octomy.io/memory-bytes\": \"1Gi\", \"example.com/ok\": 2},"
            + " \"limits\": {\"example.com/ok\": -1}}}";
    BatchJobSpec spec = Serialization.jsonMapper().readValue(json, BatchJobSpec.class);
    assertThat(spec.getResources().getRequests()).containsExactly(Map.entry("example.com/ok", 2L));
    assertThat(SpecValidator.problems(spec))
        .anySatisfy(p -> assertThat(p).contains("'octomy.io/cpu-milli'] is 0.5, a fraction"))
        .anySatisfy(p -> assertThat(p).contains("is the string \"1Gi\""))
        .anySatisfy(p -> assertThat(p).contains("spec.resources.limits['example.com/ok'] is -1"));
  }

  @Test
  void wrongTypesNeverFailTheReadAndAreEachReported() throws Exception {
    String json =
        "{\"group\": [1, 2, 3], \"locks\": 7, \"after\": {\"job\": \"x\"}, \"resources\": \"lots\","
            + " \"colour\": \"blue\", \"template\": {\"spec\": {\"containers\": [{\"image\": \"x\"}]}}}";
    BatchJob job =
        Serialization.jsonMapper()
            .readValue(
                "{\"apiVersion\": \"batch.octomy.io/v1alpha1\", \"kind\": \"BatchJob\", \"metadata\": {\"name\": \"x\"}, \"spec\": "
                    + json
                    + "}",
                BatchJob.class);
    assertThat(job.getSpec().getTemplate()).isNotNull();
    assertThat(SpecValidator.problems(job.getSpec()))
        .anySatisfy(p -> assertThat(p).startsWith("spec.group is a list"))
        .anySatisfy(p -> assertThat(p).startsWith("spec.locks is the number 7"))
        .anySatisfy(p -> assertThat(p).startsWith("spec.after is a mapping"))
        .anySatisfy(p -> assertThat(p).startsWith("spec.resources is a string"))
        .anySatisfy(p -> assertThat(p).startsWith("spec.colour is not a field of spec"));
  }
}
