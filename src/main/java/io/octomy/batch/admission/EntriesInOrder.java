package io.octomy.batch.admission;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A read-only map of jobs to values that its subclass keeps in arrays, in the order the jobs were
 * added: the entries are read by place ({@link #keyAt}, {@link #valueAt}) instead of being built
 * and hashed as they are added, which a pass and a forecast do tens of thousands of times.
 */
abstract class EntriesInOrder<V> extends AbstractMap<JobKey, V> {

  /** The key of the entry at a place, 0 being the first added. */
  abstract JobKey keyAt(int place);

  /** The value of the entry at a place. */
  abstract V valueAt(int place);

  @Override
  public abstract int size();

  @Override
  public final Set<Entry<JobKey, V>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<JobKey, V>> iterator() {
        return new Iterator<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < EntriesInOrder.this.size();
          }

          @Override
          public Entry<JobKey, V> next() {
            if (next >= EntriesInOrder.this.size()) {
              throw new NoSuchElementException();
            }
            int at = next++;
            return new SimpleImmutableEntry<>(keyAt(at), valueAt(at));
          }
        };
      }

      @Override
      public int size() {
        return EntriesInOrder.this.size();
      }
    };
  }
}
