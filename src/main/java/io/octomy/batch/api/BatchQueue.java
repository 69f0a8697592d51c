package io.octomy.batch.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A team's share of the pool: whose BatchJobs it holds (by namespace), its weight among its
 * siblings, and caps on what its jobs may hold together. Queues form a tree through spec.parent.
 * Its spec belongs to cluster administrators and GitOps; its status is written by the controller.
 */
@Group(Api.GROUP)
@Version(Api.VERSION)
// named, not derived: see BatchJob
@Plural("batchqueues")
@Singular("batchqueue")
@ShortNames("bq")
@Categories("octomy")
@AdditionalPrinterColumn(
    name = "WEIGHT",
    jsonPath = ".spec.weight",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "USAGE",
    jsonPath = ".status.usage",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "SHARE",
    jsonPath = ".status.share",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "PENDING",
    jsonPath = ".status.pending",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "ADMITTED",
    jsonPath = ".status.admitted",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class BatchQueue extends CustomResource<BatchQueueSpec, BatchQueueStatus> {

  @Override
  protected BatchQueueSpec initSpec() {
    return new BatchQueueSpec();
  }
}
