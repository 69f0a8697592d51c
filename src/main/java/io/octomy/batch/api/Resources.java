package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.octomy.batch.vocabulary.ResourceNames;
import java.util.Map;
import java.util.Objects;

/** What a job declares per resource: requests are reserved, limits are only measured against. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.requests) || !has(self.limits) || self.requests.all(k, !(k in self.limits) || self.requests[k] <= self.limits[k])",
    message =
        "a request is above its limit; lower the request or raise the limit so that request <= limit")
public class Resources {

  /**
   * Reserved for the whole life of the job: must be free on a node before the job starts. Resource
   * name (a domain, a slash and a name, like example.com/cfd-cores) to a whole number >= 0.
   */
  @Size(max = ResourceNames.MAX_PER_MAP)
  @ValidationRule(
      value = ResourceNames.CEL_EVERY_KEY,
      messageExpression = ResourceNames.CEL_EVERY_KEY_MESSAGE,
      message = "resource names are a DNS domain, a slash and a name, like example.com/cfd-cores")
  @JsonDeserialize(using = QuantityMapDeserializer.class)
  private Map<String, Long> requests;

  /**
   * The ceiling above which the job counts as misbehaving. Never enforced and never reserved:
   * measured peak usage above it sets status.overLimit. Same names and numbers as requests.
   */
  @Size(max = ResourceNames.MAX_PER_MAP)
  @ValidationRule(
      value = ResourceNames.CEL_EVERY_KEY,
      messageExpression = ResourceNames.CEL_EVERY_KEY_MESSAGE,
      message = "resource names are a DNS domain, a slash and a name, like example.com/cfd-cores")
  @JsonDeserialize(using = QuantityMapDeserializer.class)
  private Map<String, Long> limits;

  public Resources() {}

  public Resources(Map<String, Long> requests, Map<String, Long> limits) {
    this.requests = requests;
    this.limits = limits;
  }

  public Map<String, Long> getRequests() {
    return requests;
  }

  public void setRequests(Map<String, Long> requests) {
    this.requests = requests;
  }

  public Map<String, Long> getLimits() {
    return limits;
  }

  public void setLimits(Map<String, Long> limits) {
    this.limits = limits;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Resources r
        && Objects.equals(requests, r.requests)
        && Objects.equals(limits, r.limits);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requests, limits);
  }
}
