package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class JsonPathTest {
  private static final Object DOC =
      new JsonObject("{\"temperature\": 21.5, \"ENERGY\": {\"Power\": [3, 4]}, \"a.b\": 1}");

  @Test
  void root_selectsTheWholeDocument() {
    assertThat(path("$").select(42)).contains(42);
  }

  @Test
  void members_selectNestedValues() {
    assertThat(path("$.temperature").select(DOC)).contains(21.5);
    assertThat(path("$.ENERGY.Power[1]").select(DOC)).contains(4);
  }

  @Test
  void missingMemberOrIndex_selectsNothing() {
    assertThat(path("$.humidity").select(DOC)).isEmpty();
    assertThat(path("$.ENERGY.Power[2]").select(DOC)).isEmpty();
    assertThat(path("$.temperature.x").select(DOC)).isEmpty();
    assertThat(path("$[0]").select(DOC)).isEmpty();
  }

  @Test
  void unsupportedSyntax_isAProblemNamingIt() {
    assertThat(JsonPath.parse("temperature").problem()).contains("starts with $");
    assertThat(JsonPath.parse("$..temperature").problem()).contains("empty member name");
    assertThat(JsonPath.parse("$.a[*]").problem()).contains("only array indexes");
    assertThat(JsonPath.parse("$.a[?(@.x)]").path()).isEmpty();
  }

  private static JsonPath path(String text) {
    return JsonPath.parse(text).path().orElseThrow();
  }
}
