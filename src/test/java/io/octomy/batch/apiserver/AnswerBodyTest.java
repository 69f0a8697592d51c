package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An answer written in pieces hands over exactly the length it announced, or fails. */
class AnswerBodyTest {

  private static AnswerBody.InPieces pieces(long length, String... parts) {
    return new AnswerBody.InPieces(
        length,
        () -> List.of(parts).stream().map(p -> p.getBytes(StandardCharsets.US_ASCII)).iterator());
  }

  private static List<String> all(Iterator<byte[]> it) {
    List<String> out = new ArrayList<>();
    while (it.hasNext()) {
      out.add(new String(it.next(), StandardCharsets.US_ASCII));
    }
    return out;
  }

  @Test
  void piecesAreHandedOverInOrderAndReadWholeTheSame() {
    AnswerBody.InPieces body = pieces(9, "abc", "defgh", "i");
    assertThat(all(body.pieces())).containsExactly("abc", "defgh", "i");
    assertThat(new String(body.bytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdefghi");
    // read from a snapshot: again, the same
    assertThat(new String(body.bytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdefghi");
  }

  @Test
  void aPieceThatWouldRunPastTheLengthIsNotHandedOver() {
    Iterator<byte[]> it = pieces(4, "abc", "de").pieces();
    assertThat(new String(it.next(), StandardCharsets.US_ASCII)).isEqualTo("abc");
    assertThatThrownBy(it::next)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ran past its 4 bytes");
  }

  @Test
  void piecesThatFallShortOfTheLengthFailAtTheirEnd() {
    AnswerBody.InPieces body = pieces(5, "abc");
    assertThatThrownBy(() -> all(body.pieces()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("came to 3 bytes, not 5");
    assertThatThrownBy(body::bytes).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aWholeBodyIsItsBytes() {
    AnswerBody.Whole body = new AnswerBody.Whole("xyz".getBytes(StandardCharsets.US_ASCII));
    assertThat(body.length()).isEqualTo(3);
    assertThat(body.bytes()).isEqualTo("xyz".getBytes(StandardCharsets.US_ASCII));
  }
}
