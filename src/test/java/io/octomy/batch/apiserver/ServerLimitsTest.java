package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The table of the embedded API server's limits in docs/standalone.md says what the code enforces:
 * each row's limit is read from that table and compared with the constant the server uses.
 */
class ServerLimitsTest {

  private static final ServerLimits DEFAULTS = ServerLimits.defaults();

  @Test
  void theDocumentedTableStatesTheLimitsTheServerEnforces() throws IOException {
    Map<String, String> rows = limitsTable();
    assertThat(rows.get("request body")).contains(grouped(DEFAULTS.maxBodyBytes()) + " bytes");
    assertThat(rows.get("stored object (after a patch or apply)"))
        .contains(grouped(CommitGuard.MAX_OBJECT_BYTES) + " bytes");
    assertThat(rows.get("values of a ConfigMap or Secret"))
        .contains(grouped(ConfigValueSize.MAX_BYTES) + " bytes");
    assertThat(rows.get("nesting depth of an object")).contains(CommitGuard.MAX_DEPTH + " levels");
    assertThat(rows.get("annotations, keys plus values"))
        .contains(CommitGuard.MAX_ANNOTATION_BYTES / 1024 + " KiB");
    assertThat(rows.get("JSON patch"))
        .contains(grouped(Patches.MAX_JSON_PATCH_OPERATIONS) + " operations")
        .contains(Patches.MAX_JSON_PATCH_COPY_BYTES / (1024 * 1024) + " MiB");
    assertThat(rows.get("requests in flight"))
        .contains(DEFAULTS.maxReadOnlyInFlight() + " reading")
        .contains(DEFAULTS.maxMutatingInFlight() + " writing");
    assertThat(rows.get("a new connection's request headers"))
        .startsWith(DEFAULTS.headerTimeout().toSeconds() + " s");
    assertThat(rows.get("a connection with no request under way"))
        .startsWith(DEFAULTS.idleTimeout().toSeconds() + " s");
    assertThat(rows.get("request headers"))
        .startsWith(DEFAULTS.maxHeaderBytes() / (1024 * 1024) + " MiB");
    assertThat(rows.get("events queued for a watch client that does not read"))
        .startsWith(DEFAULTS.watchBufferBytes() / (1024 * 1024) + " MiB");
    assertThat(rows.get("watch history (to resume from a resourceVersion)"))
        .startsWith(grouped(ObjectStore.HISTORY) + " events")
        .contains(ObjectStore.HISTORY_BYTES / (1024 * 1024) + " MiB");
  }

  @Test
  void theDefaultsAreTheRealServersWhereItHasOne() {
    assertThat(DEFAULTS.maxBodyBytes()).isEqualTo(3 * 1024 * 1024);
    assertThat(DEFAULTS.maxReadOnlyInFlight()).isEqualTo(400);
    assertThat(DEFAULTS.maxMutatingInFlight()).isEqualTo(200);
    assertThat(DEFAULTS.headerTimeout().toSeconds()).isEqualTo(32);
    assertThat(DEFAULTS.idleTimeout().toSeconds()).isEqualTo(90);
    assertThat(Patches.MAX_JSON_PATCH_OPERATIONS).isEqualTo(10_000);
    assertThat(ConfigValueSize.MAX_BYTES).isEqualTo(1_048_576);
  }

  /** The table under "Limits of the embedded API server": first cell to second cell. */
  private static Map<String, String> limitsTable() throws IOException {
    String doc = Files.readString(Path.of("docs/standalone.md"));
    String section = doc.substring(doc.indexOf("## Limits of the embedded API server"));
    Map<String, String> rows = new LinkedHashMap<>();
    for (String line : section.lines().skip(1).toList()) {
      if (line.startsWith("#")) {
        break;
      }
      if (line.startsWith("| ") && !line.startsWith("| ---")) {
        String[] cells = line.split("\\|");
        rows.put(cells[1].trim(), cells[2].trim());
      }
    }
    return rows;
  }

  private static String grouped(long n) {
    return String.format("%,d", n);
  }
}
