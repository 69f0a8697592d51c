package io.octomy.batch.admission;

/**
 * The fair-share term of the effective priority, per queue. A queue's usage is what its subtree
 * holds now plus what it ran (its decayed request x seconds, divided by the mean life of a second
 * of usage, half-life / ln 2, so a queue that has held H for long counts 2H), as a dominant share:
 * the largest, over the resources, of usage / what the ready nodes offer. Among siblings with work
 * (queued jobs or holdings in their subtree), each one's usage is taken relative to all the
 * siblings' usage, and divided by its deserved part (its weight over the siblings' weights): a
 * ratio of 1 is exactly its share. Level by level down the tree each ratio gives a factor 2^-ratio
 * (as Slurm's classic fair-share factor), the factors multiply, and the term is {@code
 * fairShareWeight} times the product, rounded: the full weight for a queue (and a subtree) that
 * holds nothing, a quarter of it for one of two equal queues holding everything.
 */
final class FairShare {

  private final QueueTree tree;
  private final double[] dominant;
  private final double[] deserved;
  private final long[] term;

  FairShare(
      QueueTree tree,
      QueueLedger ledger,
      NodePool pool,
      ResourceIndex resources,
      boolean[] hasWork,
      long weight,
      double meanLifeSeconds) {
    this.tree = tree;
    int n = tree.size();
    int count = pool.resourceCount();
    long[] offer = new long[count];
    for (int r = 0; r < count; r++) {
      offer[r] = pool.readyOthersOffer(r);
    }
    dominant = new double[n];
    for (int q = 0; q < n; q++) {
      double[] past = new double[count];
      QueueView view = tree.view(q);
      if (view != null) {
        view.pastUsage()
            .forEach(
                (name, value) -> {
                  int id = resources.id(name);
                  if (id >= 0 && value > 0) {
                    past[id] = value / meanLifeSeconds;
                  }
                });
      }
      for (int r = 0; r < count; r++) {
        if (offer[r] > 0) {
          dominant[q] = Math.max(dominant[q], (ledger.used(q, r) + past[r]) / offer[r]);
        }
      }
    }
    // Per parent (the top of the tree at index n): the siblings' usage and weight with work.
    double[] usageOfSiblings = new double[n + 1];
    long[] weightOfSiblings = new long[n + 1];
    for (int q = 0; q < n; q++) {
      if (hasWork[q] && tree.cycle(q) == null) {
        int p = parentSlot(q);
        usageOfSiblings[p] += dominant[q];
        weightOfSiblings[p] = QuantityMath.add(weightOfSiblings[p], tree.weight(q));
      }
    }
    double[] factor = new double[n];
    double[] part = new double[n];
    for (int q = 0; q < n; q++) {
      int p = parentSlot(q);
      long weights = QuantityMath.add(weightOfSiblings[p], hasWork[q] ? 0 : tree.weight(q));
      part[q] = (double) tree.weight(q) / weights;
      double relative = usageOfSiblings[p] > 0 ? dominant[q] / usageOfSiblings[p] : 0;
      factor[q] = Math.pow(2, -relative / part[q]);
    }
    deserved = new double[n];
    term = new long[n];
    for (int q = 0; q < n; q++) {
      if (tree.cycle(q) != null) {
        continue; // its jobs wait for the cycle to be broken
      }
      double product = 1;
      double share = 1;
      for (int a = q; a >= 0; a = tree.parent(a)) {
        product *= factor[a];
        share *= part[a];
      }
      deserved[q] = share;
      term[q] = Math.round(weight * product);
    }
  }

  private int parentSlot(int queue) {
    int p = tree.parent(queue);
    return p < 0 ? tree.size() : p;
  }

  /** The term a Queued job of the queue adds to its effective priority. */
  long term(int queue) {
    return queue < 0 ? 0 : term[queue];
  }

  /** The queue's dominant share of what the ready nodes offer. */
  double dominant(int queue) {
    return dominant[queue];
  }

  /** The share of the pool the queue deserves among the queues with work. */
  double deserved(int queue) {
    return deserved[queue];
  }

  QueueTree tree() {
    return tree;
  }
}
