package io.octomy.batch.admission;

import java.util.Arrays;

/**
 * The node orders of one pass as built, before its first admission ({@link FreeSpaceIndex#orders}):
 * what the next pass starts from when the same nodes take others' work, so that it moves the few
 * nodes whose allocation changed instead of sorting every order again. Nothing here is changed
 * after it is made; a pass copies what it starts from.
 *
 * @param nodes the pool's node count
 * @param r the resource count
 * @param eligible the nodes that take others' work, ascending
 * @param othersOffer per node and resource, others' offer
 * @param byJobCount the order by admitted or running jobs
 * @param freeOrders per resource, the order by free amount
 * @param byOfferDescending per resource, the nodes by others' offer, largest first
 * @param totalOffers per resource, the sum of others' offers
 */
record NodeOrders(
    int nodes,
    int r,
    int[] eligible,
    long[] othersOffer,
    RankedNodes byJobCount,
    RankedNodes[] freeOrders,
    int[][] byOfferDescending,
    long[] totalOffers) {

  /** Whether these orders are over exactly these eligible nodes of a pool of this shape. */
  boolean over(int nodeCount, int resourceCount, int[] eligibleNodes) {
    return nodes == nodeCount && r == resourceCount && Arrays.equals(eligible, eligibleNodes);
  }

  RankedNodes freeOrder(int resource) {
    return freeOrders[resource];
  }

  int[] byOfferDescending(int resource) {
    return byOfferDescending[resource];
  }

  long totalOffer(int resource) {
    return totalOffers[resource];
  }
}
