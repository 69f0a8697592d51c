package io.octomy.batch.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO (made by {@code mkfifo}, a child process) where a job's output file was: refused at once
 * rather than waited on, directly or through a link, and a read that blocks in the kernel is cut
 * off at its bound.
 */
@DisabledOnOs(OS.WINDOWS)
class JobOutputFifoE2E {

  @TempDir Path dir;

  @Test
  void aFifoInPlaceOfTheOutputIsRefusedAtOnce() throws Exception {
    Path fifo = fifo(dir.resolve("output.log"));
    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () ->
            assertThatThrownBy(() -> JobOutputText.read(fifo, null, null))
                .isInstanceOf(JobOutputText.Unreadable.class)
                .hasMessage(
                    fifo
                        + " is a FIFO, not a regular file (the job replaced it); only a regular"
                        + " file is read as a job's output."));
  }

  @Test
  void aLinkToAFifoInTheJobsDirectoryIsRefusedAtOnce() throws Exception {
    Path fifo = fifo(dir.resolve("pipe"));
    Path link = Files.createSymbolicLink(dir.resolve("output.log"), fifo.getFileName());
    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () ->
            assertThatThrownBy(() -> JobOutputText.read(link, null, null))
                .hasMessageContaining("is a FIFO, not a regular file"));
    Files.writeString(dir.resolve("real.log"), "hello\n");
    Files.delete(link);
    Files.createSymbolicLink(link, Path.of("real.log"));
    assertThat(new String(JobOutputText.read(link, null, null), StandardCharsets.UTF_8))
        .isEqualTo("hello\n");
  }

  @Test
  void aReadBlockedPastItsBoundIsCutOff() throws Exception {
    // A FIFO opened for reading and writing, with nothing written: its read blocks in the kernel,
    // as a read of a file on a stalled file system would.
    Path fifo = fifo(dir.resolve("stalled"));
    try (FileChannel f =
        FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long start = System.nanoTime();
      assertTimeoutPreemptively(
          Duration.ofSeconds(10),
          () ->
              assertThatThrownBy(
                      () ->
                          JobOutputText.bounded(
                              f, Duration.ofMillis(300), c -> c.read(ByteBuffer.allocate(10))))
                  .isInstanceOf(JobOutputText.Unreadable.class)
                  .hasMessage("reading it took longer than 300 ms and was cut off; ask again.")
                  .matches(e -> ((JobOutputText.Unreadable) e).timedOut()));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  private static Path fifo(Path path) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0).as("mkfifo").isTrue();
    return path;
  }
}
