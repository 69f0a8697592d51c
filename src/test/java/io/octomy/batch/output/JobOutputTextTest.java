package io.octomy.batch.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's output read with the options of {@code kubectl logs}: {@code tailLines} picks the last
 * lines, then {@code limitBytes} keeps the first bytes of those, as the kubelet does. What a job
 * may put in place of its output file (a FIFO, a link out of its directory, a directory) is refused
 * at once, and a read that blocks is cut off at its bound.
 */
class JobOutputTextTest {

  @TempDir Path dir;

  @Test
  void limitBytesKeepsTheStartOfTheOutput() throws IOException {
    Path file = output("one\ntwo\nthree\n");
    assertThat(read(file, null, 5L)).isEqualTo("one\nt");
    assertThat(read(file, null, 1000L)).isEqualTo("one\ntwo\nthree\n");
  }

  @Test
  void limitBytesCutsTheLastLinesFromTheirStart() throws IOException {
    Path file = output("one\ntwo\nthree\n");
    assertThat(read(file, 2L, 5L)).isEqualTo("two\nt");
    assertThat(read(file, 1L, 1000L)).isEqualTo("three\n");
  }

  @Test
  void tailLinesAloneGiveTheLastLines() throws IOException {
    Path file = output("one\ntwo\nthree\n");
    assertThat(read(file, 2L, null)).isEqualTo("two\nthree\n");
    assertThat(read(file, 0L, null)).isEmpty();
    assertThat(read(file, 10L, null)).isEqualTo("one\ntwo\nthree\n");
    assertThat(read(output("a\nb"), 1L, null)).as("a last line without a newline").isEqualTo("b");
  }

  @Test
  void theLastLinesAreFoundAcrossTheChunksTheFileIsReadIn() throws IOException {
    String line = "x".repeat(50_000) + "\n";
    Path file = output("first\n" + line + line + line);
    assertThat(read(file, 3L, null)).isEqualTo(line + line + line);
    assertThat(read(file, 4L, 6L)).isEqualTo("first\n");
  }

  @Test
  void anOutputBeyondTheCapIsItsEndAndLimitBytesKeepsTheStartOfThat() throws IOException {
    byte[] bytes = new byte[(int) JobOutputText.MAX_BYTES + 3];
    Arrays.fill(bytes, (byte) 'b');
    bytes[0] = 'a';
    bytes[1] = 'a';
    bytes[2] = 'a';
    bytes[3] = 'c';
    Path file = Files.write(dir.resolve("big.log"), bytes);

    byte[] all = JobOutputText.read(file, null, null);
    assertThat(all).hasSize((int) JobOutputText.MAX_BYTES);
    assertThat(new String(all, 0, 2, StandardCharsets.US_ASCII)).isEqualTo("cb");
    assertThat(read(file, null, 2L)).isEqualTo("cb");
  }

  @Test
  void aJobThatWroteNothingHasNoOutputFile() {
    assertThatThrownBy(() -> JobOutputText.read(dir.resolve("none.log"), null, null))
        .isInstanceOf(NoSuchFileException.class);
  }

  @Test
  @DisabledOnOs(OS.WINDOWS)
  void aSymbolicLinkOutOfTheJobsDirectoryIsRefused() throws Exception {
    Path job = Files.createDirectories(dir.resolve("job"));
    Files.writeString(dir.resolve("secret.txt"), "not the job's\n");
    Path link = Files.createSymbolicLink(job.resolve("output.log"), Path.of("../secret.txt"));
    assertThatThrownBy(() -> JobOutputText.read(link, null, null))
        .isInstanceOf(JobOutputText.Unreadable.class)
        .hasMessageContaining("is a symbolic link to " + dir.toRealPath().resolve("secret.txt"))
        .hasMessageContaining("out of the job's directory");
    Files.delete(link);
    Files.createSymbolicLink(link, Path.of("/dev/zero"));
    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () ->
            assertThatThrownBy(() -> JobOutputText.read(link, null, null))
                .hasMessageContaining("out of the job's directory"));
  }

  @Test
  @DisabledOnOs(OS.WINDOWS)
  void aSymbolicLinkToARegularFileInTheJobsDirectoryIsRead() throws Exception {
    Files.writeString(dir.resolve("real.log"), "hello\n");
    Path link = Files.createSymbolicLink(dir.resolve("output.log"), Path.of("real.log"));
    assertThat(read(link, null, null)).isEqualTo("hello\n");
    Path socket = socket(dir.resolve("socket"));
    Files.delete(link);
    Files.createSymbolicLink(link, socket.getFileName());
    assertThatThrownBy(() -> JobOutputText.read(link, null, null))
        .hasMessageContaining("is a socket, not a regular file");
  }

  @Test
  @DisabledOnOs(OS.WINDOWS)
  void aSocketInPlaceOfTheOutputIsRefused() throws Exception {
    Path socket = socket(dir.resolve("output.log"));
    assertThatThrownBy(() -> JobOutputText.read(socket, null, null))
        .isInstanceOf(JobOutputText.Unreadable.class)
        .hasMessage(
            socket
                + " is a socket, not a regular file (the job replaced it); only a regular file is"
                + " read as a job's output.");
  }

  @Test
  void aDirectoryInPlaceOfTheOutputIsRefused() throws IOException {
    Path d = Files.createDirectories(dir.resolve("output.log"));
    assertThatThrownBy(() -> JobOutputText.read(d, null, null))
        .isInstanceOf(JobOutputText.Unreadable.class)
        .hasMessageContaining("is a directory, not a regular file");
  }

  /** A Unix domain socket's file, a special file a job can make without any privilege. */
  private static Path socket(Path path) throws IOException {
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(path));
    }
    return path;
  }

  private Path output(String text) throws IOException {
    return Files.writeString(dir.resolve("output.log"), text);
  }

  private static String read(Path file, Long tailLines, Long limitBytes) throws IOException {
    return new String(JobOutputText.read(file, tailLines, limitBytes), StandardCharsets.UTF_8);
  }
}
