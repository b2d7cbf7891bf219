package io.sentinel.api;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The one way every resource of the API answers a failure (docs/api.md, docs/hostile-input.md). */
class ApiErrorsTest {
  private final ApiErrors errors = new ApiErrors();

  @Test
  void anUnexpectedFailure_isA500_namingNoInternalDetail() {
    Response r =
        errors.failed(
            new CompletionException(new RuntimeException("ERROR: relation \"secret\" SELECT")));
    assertThat(r.getStatus()).isEqualTo(500);
    assertThat((String) r.getEntity())
        .contains("internal error: the gateway's log says more")
        .doesNotContain("secret")
        .doesNotContain("SELECT");
  }

  @Test
  void anApiErrorInsideACompletion_isAnsweredAsItself() {
    Response r = errors.failed(new CompletionException(ApiError.notFound("id", "no point x")));
    assertThat(r.getStatus()).isEqualTo(404);
    assertThat((String) r.getEntity()).contains("no point x");
  }

  @Test
  void theEngineStoppingUnderARequest_isA503() {
    Response r =
        errors.failed(new CompletionException(new IllegalStateException("the engine stopped")));
    assertThat(r.getStatus()).isEqualTo(503);
  }

  @Test
  void a401_namesTheBearerScheme() {
    Response r = errors.refused(new ApiError(401, "", "a token is needed"));
    assertThat(r.getHeaderString(HttpHeaders.WWW_AUTHENTICATE))
        .isEqualTo("Bearer realm=\"sentinel\"");
  }
}
