package io.octomy.batch.admission;

import static io.octomy.batch.admission.AdmissionPassTest.scenario;
import static io.octomy.batch.admission.Expected.admitted;
import static io.octomy.batch.admission.Expected.waits;
import static io.octomy.batch.admission.Fixtures.CPU;
import static io.octomy.batch.admission.Fixtures.job;
import static io.octomy.batch.admission.Fixtures.node;
import static io.octomy.batch.admission.Fixtures.queue;
import static io.octomy.batch.admission.Fixtures.world;

import io.octomy.batch.admission.AdmissionPassTest.Case;
import java.util.stream.Stream;

/**
 * The table cases of a BatchQueue's {@code spec.nodeSelector} (a queue's jobs only on its nodes),
 * part of {@link AdmissionPassTest#cases()}.
 */
final class QueueSelectorCases {

  private QueueSelectorCases() {}

  static Stream<Case> cases() {
    return Stream.of(
        scenario(
                "a queue's jobs go only to the nodes its nodeSelector selects; other queues' jobs"
                    + " still go anywhere",
                world()
                    .with(
                        queue("gpu").namespaces("vision").nodeSelector("pool", "gpu"),
                        queue("cpu").namespaces("cfd"))
                    .with(
                        node("a-plain").capacity(CPU, 4000),
                        node("b-gpu").capacity(CPU, 8000).label("pool", "gpu"))
                    .with(
                        job("train").namespace("vision").requests(CPU, 2000),
                        job("mesh").namespace("cfd").requests(CPU, 4000)))
            .expect("vision/train", admitted("b-gpu"))
            .expect("cfd/mesh", admitted("a-plain")),
        scenario(
                "a queue's selector and the job's own add up, and a parent's selector holds for"
                    + " the queues below it",
                world()
                    .with(
                        queue("lab").nodeSelector("site", "lab"),
                        queue("vision").parent("lab").namespaces("vision"))
                    .with(
                        node("a-lab-hdd").capacity(CPU, 8000).label("site", "lab"),
                        node("b-lab-ssd")
                            .capacity(CPU, 8000)
                            .label("site", "lab")
                            .label("disk", "ssd"),
                        node("c-ssd").capacity(CPU, 2000).label("disk", "ssd"))
                    .with(
                        job("train")
                            .namespace("vision")
                            .requests(CPU, 2000)
                            .nodeSelector("disk", "ssd")))
            .expect("vision/train", admitted("b-lab-ssd")),
        scenario(
                "a queue's selector no ready node matches: NoNodeFits, naming the queue",
                world()
                    .with(queue("gpu").namespaces("vision").nodeSelector("pool", "gpu"))
                    .with(node("ws-1").capacity(CPU, 8000))
                    .with(job("train").namespace("vision").requests(CPU, 1000)))
            .expect(
                "vision/train",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: no ready node has the labels pool=gpu that queue gpu's"
                            + " nodeSelector asks for; label a node with kubectl label bn NODE"
                            + " pool=gpu, or change the selector.")),
        scenario(
                "a job asking for another value of its queue's label fits nowhere, and says both",
                world()
                    .with(queue("gpu").namespaces("vision").nodeSelector("pool", "gpu"))
                    .with(
                        node("a-gpu").capacity(CPU, 8000).label("pool", "gpu"),
                        node("b-cpu").capacity(CPU, 8000).label("pool", "cpu"))
                    .with(
                        job("train")
                            .namespace("vision")
                            .requests(CPU, 1000)
                            .nodeSelector("pool", "cpu")))
            .expect(
                "vision/train",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: spec.nodeSelector asks for pool=cpu, and queue gpu's"
                            + " nodeSelector for pool=gpu; drop that label from the job, or"
                            + " submit it where another queue holds it.")),
        scenario(
                "a queue whose selector disagrees with its parent's holds no job anywhere",
                world()
                    .with(
                        queue("lab").nodeSelector("site", "lab"),
                        queue("vision")
                            .parent("lab")
                            .namespaces("vision")
                            .nodeSelector("site", "cloud"))
                    .with(
                        node("a-lab").capacity(CPU, 8000).label("site", "lab"),
                        node("b-cloud").capacity(CPU, 8000).label("site", "cloud"))
                    .with(job("train").namespace("vision").requests(CPU, 1000)))
            .expect(
                "vision/train",
                waits(Reason.NoNodeFits)
                    .message(
                        "no node fits: queue lab keeps its jobs to site=lab where queue vision"
                            + " below it asks for site=cloud; make the two nodeSelectors"
                            + " agree.")));
  }
}
