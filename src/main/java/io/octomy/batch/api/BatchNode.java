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
 * A machine in the pool. Its spec (mode, ownMode, executor, extra resources) belongs to people and
 * GitOps; its status is written only by the agent of the machine.
 */
@Group(Api.GROUP)
@Version(Api.VERSION)
// named, not derived: see BatchJob
@Plural("batchnodes")
@Singular("batchnode")
@ShortNames("bn")
@Categories("octomy")
@AdditionalPrinterColumn(
    name = "MODE",
    jsonPath = ".spec.mode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "OWN-MODE",
    jsonPath = ".spec.ownMode",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "EXECUTOR",
    jsonPath = ".spec.executor",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "READY",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(
    name = "OFFER",
    jsonPath = ".status.offer.others",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "ALLOCATED",
    jsonPath = ".status.allocated",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
public class BatchNode extends CustomResource<BatchNodeSpec, BatchNodeStatus> {

  @Override
  protected BatchNodeSpec initSpec() {
    return new BatchNodeSpec();
  }
}
