package io.octomy.batch.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.octomy.batch.apiserver.BearerAuth.Credential;
import org.junit.jupiter.api.Test;

/** Which credential an Authorization header carries. */
class BearerAuthTest {

  private final BearerAuth auth = new BearerAuth("user-token");

  @Test
  void theUsersTokenIsAUsersRequest() {
    assertThat(auth.credential("Bearer user-token")).contains(Credential.USER);
    assertThat(auth.credential("  Bearer user-token ")).contains(Credential.USER);
  }

  @Test
  void theInProcessTokenIsThisProcesssRequest() {
    assertThat(auth.credential("Bearer " + auth.inProcessToken())).contains(Credential.IN_PROCESS);
  }

  @Test
  void anythingElseCarriesNoCredential() {
    assertThat(auth.credential(null)).isEmpty();
    assertThat(auth.credential("")).isEmpty();
    assertThat(auth.credential("Bearer ")).isEmpty();
    assertThat(auth.credential("Bearer user-token2")).isEmpty();
    assertThat(auth.credential("Basic user-token")).isEmpty();
    assertThat(auth.credential("Bearer " + new BearerAuth("user-token").inProcessToken()))
        .as("another start's in-process token")
        .isEmpty();
  }

  @Test
  void theInProcessTokenIsDrawnAtEachStartAndIsNotTheUsers() {
    BearerAuth again = new BearerAuth("user-token");

    assertThat(again.inProcessToken())
        .isNotEqualTo(auth.inProcessToken())
        .isNotEqualTo("user-token")
        .hasSize(43);
  }
}
