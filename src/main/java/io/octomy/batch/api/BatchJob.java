package io.octomy.batch.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalSelectableField;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A batch job waiting for, holding or done with a place on a node. People write the spec; the
 * controller writes the status: the derived service class, the phase, and while it waits exactly
 * why.
 */
@Group(Api.GROUP)
@Version(Api.VERSION)
// named, not derived: every instance computes its names in the constructor, and deriving the
// plural (English rules, regular expressions) was most of the cost of reading a job off the wire
@Plural("batchjobs")
@Singular("batchjob")
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
    name = "FAILED-RUNS",
    jsonPath = ".status.failedRuns",
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "ITEMS",
    jsonPath = ".status.array.items",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "REPLICAS",
    jsonPath = ".spec.replicas",
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "MESSAGE",
    jsonPath = ".status.message",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
// a node's agent lists and watches only the jobs placed on it
// (`fieldSelector=status.node=NAME`), not every job of the cluster
@AdditionalSelectableField(jsonPath = ".status.node")
// and the gangs (`fieldSelector=spec.replicas!=,spec.replicas!=1`), whose replicas after the first
// run on nodes status.node does not name
@AdditionalSelectableField(jsonPath = ".spec.replicas")
@ValidationRule(
    value = BatchJob.SPEC_FIXED_ONCE_ADMITTED,
    message =
        "spec.resources, after, locks, group, origin, replicas, nodeSelector and type cannot change"
            + " once the job has been admitted: it holds what it was admitted with (spec.array"
            + " neither, once an item of the array has been). Delete the job and create it again to"
            + " change them",
    fieldPath = ".spec",
    reason = "FieldValueForbidden")
public class BatchJob extends CustomResource<BatchJobSpec, BatchJobStatus> implements Namespaced {

  /**
   * A transition rule: once a job has been admitted (Admitted, Running, Succeeded or Failed), the
   * spec fields admission read are fixed (spec.suspend is not one: suspending an admitted job is
   * accepted and changes nothing, as its SpecChangeIgnored condition says); only the pod template
   * may still change (a change the job no longer takes up once admitted, as its SpecChangeIgnored
   * condition says). Queued, Skipped and Rejected jobs stay editable: that is how they are fixed.
   */
  public static final String SPEC_FIXED_ONCE_ADMITTED =
      "!has(oldSelf.status) || !has(oldSelf.status.phase)"
          + " || !(oldSelf.status.phase in ['Admitted', 'Running', 'Succeeded', 'Failed'])"
          + " || (has(self.spec) && has(oldSelf.spec)"
          + " && (has(self.spec.resources) == has(oldSelf.spec.resources)"
          + " && (!has(self.spec.resources) || self.spec.resources == oldSelf.spec.resources))"
          + " && (has(self.spec.after) == has(oldSelf.spec.after)"
          + " && (!has(self.spec.after) || self.spec.after == oldSelf.spec.after))"
          + " && (has(self.spec.locks) == has(oldSelf.spec.locks)"
          + " && (!has(self.spec.locks) || self.spec.locks == oldSelf.spec.locks))"
          + " && (has(self.spec.group) == has(oldSelf.spec.group)"
          + " && (!has(self.spec.group) || self.spec.group == oldSelf.spec.group))"
          + " && (has(self.spec.origin) == has(oldSelf.spec.origin)"
          + " && (!has(self.spec.origin) || self.spec.origin == oldSelf.spec.origin))"
          + " && (has(self.spec.replicas) == has(oldSelf.spec.replicas)"
          + " && (!has(self.spec.replicas) || self.spec.replicas == oldSelf.spec.replicas))"
          + " && (has(self.spec.nodeSelector) == has(oldSelf.spec.nodeSelector)"
          + " && (!has(self.spec.nodeSelector)"
          + " || self.spec.nodeSelector == oldSelf.spec.nodeSelector))"
          + " && (has(self.spec.array) == has(oldSelf.spec.array)"
          + " && (!has(self.spec.array) || self.spec.array == oldSelf.spec.array))"
          + " && (has(self.spec.type) == has(oldSelf.spec.type)"
          + " && (!has(self.spec.type) || self.spec.type == oldSelf.spec.type))"
          + ")";

  @Override
  protected BatchJobSpec initSpec() {
    return new BatchJobSpec();
  }
}
