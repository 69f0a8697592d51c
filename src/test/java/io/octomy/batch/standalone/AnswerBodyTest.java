package io.octomy.batch.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An answer written in pieces hands over exactly the length it announced, or fails. */
class AnswerBodyTest {

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void piecesAreHandedOverInOrderAndReadWholeTheSame() {
    AnswerBody.InPieces body =
        new AnswerBody.InPieces(
            9,
            out -> {
              out.accept(ascii("abc"));
              out.accept(ascii("defgh"));
              out.accept(ascii("i"));
            });
    List<String> pieces = new ArrayList<>();
    body.writeTo(p -> pieces.add(new String(p, StandardCharsets.US_ASCII)));
    assertThat(pieces).containsExactly("abc", "defgh", "i");
    assertThat(new String(body.bytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdefghi");
    // written from a snapshot: again, the same
    assertThat(new String(body.bytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdefghi");
  }

  @Test
  void aPieceThatWouldRunPastTheLengthIsNotHandedOver() {
    AnswerBody.InPieces body =
        new AnswerBody.InPieces(
            4,
            out -> {
              out.accept(ascii("abc"));
              out.accept(ascii("de"));
            });
    List<String> pieces = new ArrayList<>();
    assertThatThrownBy(() -> body.writeTo(p -> pieces.add(new String(p))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ran past its 4 bytes");
    assertThat(pieces).containsExactly("abc");
  }

  @Test
  void piecesThatFallShortOfTheLengthFail() {
    AnswerBody.InPieces body = new AnswerBody.InPieces(5, out -> out.accept(ascii("abc")));
    assertThatThrownBy(() -> body.writeTo(p -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("came to 3 bytes, not 5");
    assertThatThrownBy(body::bytes).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aWholeBodyIsItsBytes() {
    AnswerBody.Whole body = new AnswerBody.Whole(ascii("xyz"));
    assertThat(body.length()).isEqualTo(3);
    assertThat(body.bytes()).isEqualTo(ascii("xyz"));
  }
}
