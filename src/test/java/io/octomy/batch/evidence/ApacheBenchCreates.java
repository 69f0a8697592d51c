package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Creates sent by ApacheBench ({@code ab -k -c C}, HTTP/1.0 keep-alive over TLS), one process per
 * round: how the performance figures the project started from were taken. It spends 0.04–0.05 ms of
 * processor time per create where the JDK's client spends about 0.2 ms (docs/benchmarks.md), so on
 * two shared processors more of them are left to the server. Needs {@code ab} on the PATH (Debian:
 * {@code apt-get install apache2-utils}).
 */
final class ApacheBenchCreates implements CreateClients {

  private static final Pattern COMPLETE = Pattern.compile("Complete requests:\\s+(\\d+)");
  private static final Pattern NOT_2XX = Pattern.compile("Non-2xx responses:\\s+(\\d+)");
  private static final Pattern FAILED =
      Pattern.compile(
          "Failed requests:\\s+\\d+\\s*\\(Connect: (\\d+), Receive: (\\d+), Length: \\d+,"
              + " Exceptions: (\\d+)\\)");
  private static final Pattern TAKEN = Pattern.compile("Time taken for tests:\\s+([\\d.]+)");

  /** The last line of bash's {@code times}: the children's user and system time. */
  private static final Pattern CHILD_TIMES =
      Pattern.compile("(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s\\s*$");

  /** ab keeps a record per request it will send: a round bounded by time alone sends this many. */
  private static final int MOST_PER_ROUND = 100_000;

  private final String collection;
  private final String token;
  private final int clients;
  private final Map<String, Path> bodies = new HashMap<>();
  private double childSeconds;

  ApacheBenchCreates(Config config, String namespace, int clients) {
    this.collection =
        config.getMasterUrl().replaceAll("/+$", "")
            + "/apis/batch.octomy.io/v1alpha1/namespaces/"
            + namespace
            + "/batchjobs";
    this.token =
        config.getAutoOAuthToken() != null ? config.getAutoOAuthToken() : config.getOauthToken();
    this.clients = clients;
  }

  @Override
  public RawCreates.Round run(String body, String query, int creates, Duration limit)
      throws InterruptedException {
    List<String> command =
        List.of(
            "bash",
            "-c",
            "ab \"$@\"; status=$?; times; exit $status",
            "ab",
            "-k",
            "-q",
            "-c",
            Integer.toString(clients),
            // -t before -n: a time limit implies 50,000 requests, and the -n after it sets them
            "-t",
            Long.toString(Math.max(1, Math.min(limit.toSeconds(), 86_400))),
            "-n",
            Integer.toString(Math.max(clients, Math.min(creates, MOST_PER_ROUND))),
            "-p",
            bodyFile(body).toString(),
            "-T",
            "application/json",
            "-H",
            "Authorization: Bearer " + token,
            query.isEmpty() ? collection : collection + "?" + query);
    String out;
    int exit;
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      exit = p.waitFor();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run ab (apt-get install apache2-utils)", e);
    }
    if (exit != 0) {
      throw new IllegalStateException("ab exited with " + exit + ":\n" + out);
    }
    Matcher times = CHILD_TIMES.matcher(out.strip());
    if (!times.find()) {
      throw new IllegalStateException("no processor time for ab in:\n" + out);
    }
    childSeconds +=
        Integer.parseInt(times.group(1)) * 60
            + Double.parseDouble(times.group(2))
            + Integer.parseInt(times.group(3)) * 60
            + Double.parseDouble(times.group(4));
    long complete = number(COMPLETE, out, -1);
    long refused = number(NOT_2XX, out, 0);
    Matcher failed = FAILED.matcher(out);
    long unanswered =
        failed.find()
            ? Long.parseLong(failed.group(1))
                + Long.parseLong(failed.group(2))
                + Long.parseLong(failed.group(3))
            : 0;
    double seconds = Double.parseDouble(group(TAKEN, out));
    if (complete < 0) {
      throw new IllegalStateException("no request count in ab's output:\n" + out);
    }
    return new RawCreates.Round(complete - refused, refused + unanswered, seconds);
  }

  @Override
  public double processorSeconds() {
    return JvmProcessorTime.now().seconds() + childSeconds;
  }

  @Override
  public String describe() {
    return clients + " ab -k clients";
  }

  private Path bodyFile(String body) {
    return bodies.computeIfAbsent(
        body,
        b -> {
          try {
            Path f = Files.createTempFile("octomy-ab-body", ".json");
            f.toFile().deleteOnExit();
            return Files.writeString(f, b);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private static long number(Pattern p, String out, long missing) {
    Matcher m = p.matcher(out);
    return m.find() ? Long.parseLong(m.group(1)) : missing;
  }

  private static String group(Pattern p, String out) {
    Matcher m = p.matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("'" + p + "' not in ab's output:\n" + out);
    }
    return m.group(1);
  }
}
