package io.octomy.batch.admission;

import static io.octomy.batch.admission.AdmissionPassTest.scenario;
import static io.octomy.batch.admission.Expected.admitted;
import static io.octomy.batch.admission.Expected.rejected;
import static io.octomy.batch.admission.Expected.waits;
import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.world;
import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.admission.AdmissionPassTest.Case;
import java.util.stream.Stream;

/**
 * The table cases of a failed run's retry backing off (reason BackingOff), part of {@link
 * AdmissionPassTest#cases()}.
 */
final class RetryCases {

  private RetryCases() {}

  static Stream<Case> cases() {
    return Stream.of(
        scenario(
                "a retry backing off counts nothing and holds nothing back, even when it has"
                    + " starved; once its back-off has ended it keeps its place by its queue time",
                world()
                    .with(node("ws-1").capacity(CPU, 4001))
                    .with(
                        job("flaky")
                            .requests(CPU, 4000)
                            .locks("subject/ernie")
                            .queuedMinutesAgo(300)
                            .backingOffSeconds(20),
                        job("rival").requests(CPU, 4000).locks("subject/ernie"),
                        job("retried").requests(CPU, 1).queuedMinutesAgo(60).backingOffSeconds(0),
                        job("young").requests(CPU, 1)))
            .expect(
                "flaky",
                waits(Reason.BackingOff)
                    .message(
                        "backing off after a failed run: it may run again from"
                            + " 2026-03-01T12:00:20Z on.")
                    .starving(false))
            .expect("rival", admitted("ws-1"))
            .expect("retried", admitted("ws-1"))
            .expect("young", waits(Reason.WaitingForCapacity))
            .then(r -> assertThat(r.hold()).isNull()),
        scenario(
                "an invalid spec is rejected before its back-off is looked at",
                world()
                    .with(node("ws-1").capacity(CPU, 4000))
                    .with(
                        job("broken")
                            .requests(CPU, 1)
                            .problem("spec.type is 7; write a name.")
                            .backingOffSeconds(20)))
            .expect("broken", rejected(Reason.InvalidSpec)));
  }
}
