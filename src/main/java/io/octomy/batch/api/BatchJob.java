package io.octomy.batch.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A batch job waiting for, holding or done with a place on a node. People write the spec; the
 * controller writes the status: the derived service class, the phase, and while it waits exactly
 * why.
 */
@Group(Api.GROUP)
@Version(Api.VERSION)
@ShortNames("bj")
@Categories("octomy")
@AdditionalPrinterColumn(
    name = "CLASS",
    jsonPath = ".status.serviceClass",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "PHASE",
    jsonPath = ".status.phase",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "NODE",
    jsonPath = ".status.node",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "REASON",
    jsonPath = ".status.reason",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(
    name = "PRIORITY",
    jsonPath = ".status.effectivePriority",
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "MESSAGE",
    jsonPath = ".status.message",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
public class BatchJob extends CustomResource<BatchJobSpec, BatchJobStatus> implements Namespaced {

  @Override
  protected BatchJobSpec initSpec() {
    return new BatchJobSpec();
  }
}
