package io.octomy.batch.admission.bench;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.Random;

/**
 * One benchmark operation of two builds of the admission classes, timed call by call in turn in one
 * JVM, each build in a class loader of its own over the same benchmark classes: a baseline and a
 * change measured side by side at the same moments, where two JMH runs one after the other on a
 * shared host differ by more than the change (the medians of one code moved by 20 to 40 % between
 * runs minutes apart). Which build goes first in a round is drawn at random, so neither always
 * meets the other's leftovers in the caches.
 *
 * <p>Prints each build's median, p10 and p90, the ratio of the medians (change over baseline), and
 * the median and quartiles of the per-round ratios. JMH stays the measure of the figures
 * themselves; this is the measure of a change.
 *
 * <pre>
 * java -cp target/test-classes:$(cat target/cp.txt) \
 *     io.octomy.batch.admission.bench.InterleavedComparison \
 *     BASELINE/target/classes target/classes \
 *     io.octomy.batch.admission.bench.ForecastBenchmark forecastRemembering 10000x1000 200
 * </pre>
 *
 * <p>SIZE sets the benchmark's {@code size}, or names another parameter as {@code field=value}.
 */
public final class InterleavedComparison {

  private static final int WARMUP_ROUNDS = 40;

  private InterleavedComparison() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println(
          "usage: InterleavedComparison BASELINE_CLASSES CHANGE_CLASSES BENCHMARK_CLASS METHOD"
              + " SIZE ROUNDS");
      System.exit(2);
    }
    String[] builds = {args[0], args[1]};
    String benchmark = args[2];
    String method = args[3];
    String size = args[4];
    int rounds = Integer.parseInt(args[5]);
    URL benchmarks =
        InterleavedComparison.class.getProtectionDomain().getCodeSource().getLocation();
    ClassLoader libraries = InterleavedComparison.class.getClassLoader();

    Object[] states = new Object[2];
    Method[] operations = new Method[2];
    for (int b = 0; b < 2; b++) {
      ClassLoader loader = new ChildFirstLoader(new URL[] {url(builds[b]), benchmarks}, libraries);
      Class<?> type = Class.forName(benchmark, true, loader);
      states[b] = type.getDeclaredConstructor().newInstance();
      setParameter(type, states[b], size);
      type.getMethod("setUp").invoke(states[b]);
      operations[b] = type.getMethod(method);
    }

    for (int w = 0; w < WARMUP_ROUNDS; w++) {
      operations[0].invoke(states[0]);
      operations[1].invoke(states[1]);
    }
    long[][] nanos = new long[2][rounds];
    double[] ratios = new double[rounds];
    Random random = new Random(1);
    for (int r = 0; r < rounds; r++) {
      int first = random.nextInt(2);
      for (int k = 0; k < 2; k++) {
        int b = k == 0 ? first : 1 - first;
        long start = System.nanoTime();
        operations[b].invoke(states[b]);
        nanos[b][r] = System.nanoTime() - start;
      }
      ratios[r] = (double) nanos[1][r] / nanos[0][r];
    }

    String[] names = {"baseline", "change"};
    for (int b = 0; b < 2; b++) {
      long[] sorted = nanos[b].clone();
      Arrays.sort(sorted);
      System.out.printf(
          "%-8s %s %s: median %.2f ms, p10 %.2f ms, p90 %.2f ms, %d calls (%s)%n",
          names[b],
          method,
          size,
          at(sorted, 0.5) / 1e6,
          at(sorted, 0.1) / 1e6,
          at(sorted, 0.9) / 1e6,
          rounds,
          builds[b]);
    }
    long[] baseline = nanos[0].clone();
    long[] change = nanos[1].clone();
    Arrays.sort(baseline);
    Arrays.sort(change);
    Arrays.sort(ratios);
    System.out.printf(
        "change / baseline: ratio of medians %.3f; per round: median %.3f (quartiles %.3f, %.3f)%n",
        (double) at(change, 0.5) / at(baseline, 0.5),
        ratios[(int) (0.5 * (rounds - 1))],
        ratios[(int) (0.25 * (rounds - 1))],
        ratios[(int) (0.75 * (rounds - 1))]);
  }

  /**
   * Sets the benchmark's parameter: {@code size} to SIZE, or the field SIZE names as {@code
   * field=value} (a whole number for an int field, as {@code queues=100} for QueueTreeBenchmark).
   */
  private static void setParameter(Class<?> type, Object state, String size) throws Exception {
    String[] named = size.contains("=") ? size.split("=", 2) : new String[] {"size", size};
    var field = type.getField(named[0]);
    field.set(state, field.getType() == int.class ? Integer.valueOf(named[1]) : named[1]);
  }

  private static long at(long[] sorted, double quantile) {
    return sorted[(int) (quantile * (sorted.length - 1))];
  }

  private static URL url(String path) throws MalformedURLException {
    return new File(path).toURI().toURL();
  }

  /**
   * Finds the admission and benchmark classes in its own URLs before asking the libraries' loader,
   * which has the benchmark classes too (they are on the JVM's class path) but must not be the one
   * to load them: they would then link against whichever admission classes it saw first.
   */
  private static final class ChildFirstLoader extends URLClassLoader {
    private static final String OWN = "io.octomy.batch.";

    ChildFirstLoader(URL[] urls, ClassLoader parent) {
      super(urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith(OWN)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> type = findLoadedClass(name);
        if (type == null) {
          type = findClass(name);
        }
        if (resolve) {
          resolveClass(type);
        }
        return type;
      }
    }
  }
}
