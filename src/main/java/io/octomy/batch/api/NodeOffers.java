package io.octomy.batch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;
import java.util.Objects;

/** Capacity scaled by the mode table: once for the node's own work, once for other nodes' work. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeOffers {

  /** Offer for jobs whose spec.origin is this node (scaled by ownMode). */
  private Map<String, Long> own;

  /** Offer for every other job (scaled by mode). */
  private Map<String, Long> others;

  public NodeOffers() {}

  public NodeOffers(Map<String, Long> own, Map<String, Long> others) {
    this.own = own;
    this.others = others;
  }

  public Map<String, Long> getOwn() {
    return own;
  }

  public void setOwn(Map<String, Long> own) {
    this.own = own;
  }

  public Map<String, Long> getOthers() {
    return others;
  }

  public void setOthers(Map<String, Long> others) {
    this.others = others;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NodeOffers n
        && Objects.equals(own, n.own)
        && Objects.equals(others, n.others);
  }

  @Override
  public int hashCode() {
    return Objects.hash(own, others);
  }
}
