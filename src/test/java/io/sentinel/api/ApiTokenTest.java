package io.sentinel.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The bearer token's rules (issue 17): 401 without a token, 403 with a wrong one, and on a gateway
 * without one every mutation refused (401 without a token, 403 with any).
 */
class ApiTokenTest {
  @Test
  void noTokenConfigured_everyMutationIsRefused_401WithoutAToken_403WithOne() {
    for (Optional<String> none : java.util.List.of(Optional.<String>empty(), Optional.of("  "))) {
      ApiToken token = token(none);
      for (String header : new String[] {null, "Bearer ", "Bearer anything"}) {
        ApiError e = catchThrowableOfType(ApiError.class, () -> token.require(header));
        assertThat(e.status())
            .isEqualTo(header == null || header.isBlank() || header.equals("Bearer ") ? 401 : 403);
        assertThat(e.field()).isEqualTo("Authorization");
        assertThat(e.getMessage()).contains("sentinel.api.token");
      }
    }
  }

  @Test
  void tokenConfigured_onlyTheExactBearerTokenPasses() {
    ApiToken token = token(Optional.of("abc123"));
    assertThatCode(() -> token.require("Bearer abc123")).doesNotThrowAnyException();
    assertThatCode(() -> token.require("bearer abc123")).doesNotThrowAnyException();
    for (String header : new String[] {null, "", "abc123", "Basic abc123", "Bearer "}) {
      ApiError e = catchThrowableOfType(ApiError.class, () -> token.require(header));
      assertThat(e.status()).as(String.valueOf(header)).isEqualTo(401);
    }
    for (String header : new String[] {"Bearer abc12", "Bearer abc1234", "Bearer ABC123"}) {
      ApiError e = catchThrowableOfType(ApiError.class, () -> token.require(header));
      assertThat(e.status()).as(header).isEqualTo(403);
      assertThat(e.getMessage()).contains("not this gateway's API token");
    }
  }

  private static ApiToken token(Optional<String> configured) {
    ApiToken t = new ApiToken();
    t.token = configured;
    return t;
  }
}
