package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A list's answer is sized before it is filled: the length computed for each item's text must be
 * the length its UTF-8 encoding has, for any text (ASCII, two- and three-byte characters, surrogate
 * pairs and lone surrogates).
 */
class ListAnswerSizePropertiesTest {

  @Property(tries = 3000)
  void theComputedLengthIsTheEncodedLength(@ForAll("texts") String text) {
    assertThat(ListReads.utf8Length(text)).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
  }

  @Provide
  Arbitrary<String> texts() {
    Arbitrary<String> pieces =
        Arbitraries.oneOf(
            Arbitraries.strings().ascii().ofMaxLength(8),
            Arbitraries.strings().withCharRange('\u0080', '\u07ff').ofMaxLength(4),
            Arbitraries.strings().withCharRange('\u0800', '\uffff').ofMaxLength(4),
            Arbitraries.of("\ud83d\ude00", "\ud83d", "\ude00", "\ude00\ud83d", "é", "\u20ac"));
    return pieces.list().ofMaxSize(12).map(l -> String.join("", l));
  }
}
