package io.octomy.batch.evidence;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every HTTP request a fabric8 client sends, by verb and resource ("PUT batchjobs/status",
 * "POST events", "GET batchjobs?watch"), and every response code. Installed on the controller's
 * client, it counts exactly what the controller asks of the API server.
 */
final class RequestCounter implements Interceptor {

  private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
  private final Map<Integer, LongAdder> codes = new ConcurrentHashMap<>();

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    requests.computeIfAbsent(kind(request), k -> new LongAdder()).increment();
  }

  @Override
  public void after(
      HttpRequest request,
      HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    codes.computeIfAbsent(response.code(), k -> new LongAdder()).increment();
  }

  /** "VERB resource[/subresource][?watch]", without names and namespaces. */
  static String kind(HttpRequest r) {
    String path = r.uri().getPath();
    String[] p = path.split("/");
    String resource = "?";
    String sub = "";
    // /apis/G/V/[namespaces/NS/]R[/NAME[/SUB]] or /api/V/[namespaces/NS/]R[/NAME[/SUB]]
    int i = path.startsWith("/apis/") ? 4 : 3;
    if (p.length > i + 1 && "namespaces".equals(p[i]) && p.length > i + 2) {
      i += 2;
    }
    if (p.length > i) {
      resource = p[i];
    }
    if (p.length > i + 2) {
      sub = "/" + p[i + 2];
    }
    String q = r.uri().getQuery();
    String watch = q != null && q.contains("watch=true") ? "?watch" : "";
    return r.method() + " " + resource + sub + watch;
  }

  long total() {
    return requests.values().stream().mapToLong(LongAdder::sum).sum();
  }

  long count(String kind) {
    LongAdder a = requests.get(kind);
    return a == null ? 0 : a.sum();
  }

  long code(int code) {
    LongAdder a = codes.get(code);
    return a == null ? 0 : a.sum();
  }

  Map<String, Long> byKind() {
    Map<String, Long> out = new TreeMap<>();
    requests.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  Map<Integer, Long> byCode() {
    Map<Integer, Long> out = new TreeMap<>();
    codes.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }
}
