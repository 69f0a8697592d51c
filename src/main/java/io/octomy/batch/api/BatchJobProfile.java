package io.octomy.batch.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The drift record of one job type in one namespace (named after the type): what runs of the type
 * declared against what they used, folded in by the controller as each run finishes.
 */
@Group(Api.GROUP)
@Version(Api.VERSION)
// named, not derived: see BatchJob
@Plural("batchjobprofiles")
@Singular("batchjobprofile")
@ShortNames("bjp")
@Categories("octomy")
@AdditionalPrinterColumn(
    name = "RUNS",
    jsonPath = ".status.runs",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "OVER-LIMIT",
    jsonPath = ".status.overLimitRuns",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "WASTE",
    jsonPath = ".status.waste",
    type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class BatchJobProfile extends CustomResource<Void, BatchJobProfileStatus>
    implements Namespaced {}
