package io.octomy.batch.vocabulary;

import static io.octomy.batch.vocabulary.ServiceClass.BestEffort;
import static io.octomy.batch.vocabulary.ServiceClass.Burstable;
import static io.octomy.batch.vocabulary.ServiceClass.Guaranteed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every edge of the service class rule, one named row each. */
class ServiceClassTest {

  private static final String CPU = "octomy.io/cpu-milli";
  private static final String MEM = "octomy.io/memory-bytes";
  private static final String SU2 = "example.com/su2-processes";

  static Stream<Arguments> cases() {
    return Stream.of(
        row("nothing declared (both absent)", null, null, BestEffort),
        row("empty maps are the same as absent", Map.of(), Map.of(), BestEffort),
        row("empty requests, absent limits", Map.of(), null, BestEffort),
        row(
            "every request equals its limit",
            Map.of(CPU, 2000L, MEM, 1024L),
            Map.of(CPU, 2000L, MEM, 1024L),
            Guaranteed),
        row(
            "extended resources count like any other",
            Map.of(SU2, 4L),
            Map.of(SU2, 4L),
            Guaranteed),
        // Zero is nothing, as in Kubernetes' pod QoS: a zero quantity counts as not declared.
        row("zero requests equal to zero limits", Map.of(CPU, 0L), Map.of(CPU, 0L), BestEffort),
        row("a zero request and nothing else", Map.of(SU2, 0L), null, BestEffort),
        row("a zero limit and nothing else", null, Map.of(SU2, 0L), BestEffort),
        row(
            "a zero pair beside an equal positive pair",
            Map.of(CPU, 2000L, SU2, 0L),
            Map.of(CPU, 2000L, SU2, 0L),
            Guaranteed),
        row(
            "a zero limit without a request beside an equal pair",
            Map.of(CPU, 2000L),
            Map.of(CPU, 2000L, SU2, 0L),
            Guaranteed),
        row(
            "only limits: no request is defaulted from a limit",
            null,
            Map.of(CPU, 2000L),
            Burstable),
        row("only limits, empty requests map", Map.of(), Map.of(CPU, 2000L), Burstable),
        row("only requests", Map.of(CPU, 2000L), null, Burstable),
        row("only requests, empty limits map", Map.of(CPU, 2000L), Map.of(), Burstable),
        row(
            "one request below its limit",
            Map.of(CPU, 2000L, MEM, 1024L),
            Map.of(CPU, 4000L, MEM, 1024L),
            Burstable),
        row(
            "one resource missing a request",
            Map.of(CPU, 2000L),
            Map.of(CPU, 2000L, MEM, 1024L),
            Burstable),
        row(
            "one resource missing a limit",
            Map.of(CPU, 2000L, MEM, 1024L),
            Map.of(CPU, 2000L),
            Burstable),
        row(
            "same numbers under different names",
            Map.of(CPU, 2000L),
            Map.of(SU2, 2000L),
            Burstable),
        row("zero request below a positive limit", Map.of(CPU, 0L), Map.of(CPU, 1L), Burstable));
  }

  private static Arguments row(
      String name, Map<String, Long> requests, Map<String, Long> limits, ServiceClass expected) {
    return Arguments.of(name, requests, limits, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void derivesTheClass(
      String name, Map<String, Long> requests, Map<String, Long> limits, ServiceClass expected) {
    assertThat(ServiceClass.of(requests, limits)).isEqualTo(expected);
  }
}
