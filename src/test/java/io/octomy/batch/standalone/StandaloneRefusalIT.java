package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.octomy.batch.apiserver.EmbeddedApiServer;
import io.octomy.batch.standalone.StandaloneRuntime.StandaloneOptions;
import io.octomy.batch.vocabulary.CannotStart;
import io.octomy.batch.vocabulary.NodeMode;
import io.octomy.batch.vocabulary.Policy;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's refusal to start reaches the command line as a {@link CannotStart}, which it prints
 * as the sentence alone: the user's to fix, not a fault with a stack trace.
 */
class StandaloneRefusalIT {

  @TempDir Path dir;

  @Test
  void aStateDirectoryInUseIsRefusedWithWhatToChange() {
    try (EmbeddedApiServer holder = EmbeddedApiServer.start(dir, 0, List.of())) {
      StandaloneOptions second =
          new StandaloneOptions(
              dir, 0, "n1", NodeMode.Background, Map.of(), Policy.defaults(), -1, false);
      assertThatThrownBy(() -> StandaloneRuntime.start(second, Clock.systemUTC()))
          .isInstanceOf(CannotStart.class)
          .hasMessageContaining("is in use")
          .hasMessageContaining("--state-dir");
    }
  }
}
