package io.octomy.batch.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code $(NAME)} expansion with the kubelet's rules. */
class VariableReferencesTest {

  private static final Map<String, String> VARS =
      Map.of("GREETING", "hello", "EMPTY", "", "OUT", "/tmp/out");

  @ParameterizedTest(name = "{0}: [{1}] -> [{2}]")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
      defined                     | $(GREETING) world        | hello world
      two in one                  | $(OUT)/$(GREETING).txt   | /tmp/out/hello.txt
      defined but empty           | a$(EMPTY)b               | ab
      undefined is left as written| $(NOPE) x                | $(NOPE) x
      escaped reference           | $$(GREETING)             | $(GREETING)
      escaped dollar              | cost: $$5                | cost: $5
      a lone dollar               | $HOME and $              | $HOME and $
      no closing parenthesis      | $(GREETING               | $(GREETING
      nothing to expand           | plain                    | plain
      """)
  void expandsLikeTheKubelet(String name, String input, String expected) {
    assertThat(VariableReferences.expand(input, VARS)).isEqualTo(expected);
  }
}
