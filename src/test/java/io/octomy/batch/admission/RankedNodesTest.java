package io.octomy.batch.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * The ordered node sets of the placement index against a list sorted afresh after every change: the
 * order (key, then node index), membership, and the first position with at least a key.
 */
class RankedNodesTest {

  @Provide
  Arbitrary<List<Long>> keys() {
    // Few distinct keys, so ties (broken by node index) are common; extremes included.
    return Arbitraries.longs()
        .between(-3, 6)
        .map(k -> k == 6 ? Long.MAX_VALUE : k == -3 ? Long.MIN_VALUE : k)
        .list()
        .ofMinSize(0)
        .ofMaxSize(40);
  }

  @Provide
  Arbitrary<List<Tuple2<Integer, Long>>> updates() {
    return Arbitraries.integers()
        .between(0, 39)
        .flatMap(
            node ->
                Arbitraries.longs()
                    .between(-3, 6)
                    .map(k -> Tuple.of(node, k == 6 ? Long.MAX_VALUE : k)))
        .list()
        .ofMaxSize(60);
  }

  @Property(tries = 500)
  void staysSortedByKeyThenNode(
      @ForAll("keys") List<Long> initial,
      @ForAll("updates") List<Tuple2<Integer, Long>> changes,
      @ForAll boolean everyOther) {
    int n = initial.size();
    long[] key = new long[n];
    List<Integer> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      key[i] = initial.get(i);
      if (!everyOther || i % 2 == 0) {
        members.add(i);
      }
    }
    RankedNodes set = new RankedNodes(n);
    set.build(members.stream().mapToInt(Integer::intValue).toArray(), key.clone());
    assertOrder(set, members, key, n);
    for (Tuple2<Integer, Long> change : changes) {
      int node = change.get1();
      if (node >= n || !members.contains(node)) {
        continue;
      }
      key[node] = change.get2();
      set.update(node, key[node]);
      assertOrder(set, members, key, n);
    }
  }

  /**
   * As a pass starts from the last pass's orders: a copy of a set built over some keys, each member
   * then moved to its new key, is in the order of a set built over the new keys, and the set it was
   * copied from is left as it was.
   */
  @Property(tries = 500)
  void aCopyMovedToNewKeysIsInTheOrderOfABuild(
      @ForAll("keys") List<Long> before, @ForAll("keys") List<Long> after) {
    int n = Math.min(before.size(), after.size());
    int[] members = new int[n];
    long[] oldKey = new long[n];
    long[] newKey = new long[n];
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      members[i] = i;
      oldKey[i] = before.get(i);
      newKey[i] = after.get(i);
      all.add(i);
    }
    RankedNodes built = new RankedNodes(n);
    built.build(members, oldKey.clone());
    RankedNodes moved = built.copy();
    for (int i = 0; i < n; i++) {
      moved.update(i, newKey[i]);
    }
    assertOrder(moved, all, newKey, n);
    assertOrder(built, all, oldKey, n);
  }

  private static void assertOrder(RankedNodes set, List<Integer> members, long[] key, int n) {
    List<Integer> expected =
        members.stream()
            .sorted(Comparator.comparingLong((Integer i) -> key[i]).thenComparingInt(i -> i))
            .toList();
    List<Integer> actual = new ArrayList<>();
    for (int p = 0; p < set.size(); p++) {
      actual.add(set.nodeAt(p));
    }
    assertThat(actual).isEqualTo(expected);
    for (int i = 0; i < n; i++) {
      assertThat(set.contains(i)).isEqualTo(members.contains(i));
    }
    for (long probe = -3; probe <= 6; probe++) {
      long k = probe;
      int first = set.firstAtLeast(k);
      long below = expected.stream().filter(i -> key[i] < k).count();
      assertThat(first).as("first position at least %d", k).isEqualTo((int) below);
    }
  }
}
