package io.sentinel.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.sentinel.runtime.BrokerClient;
import io.sentinel.runtime.BrokerResource;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The HTTP API on the example site in a real gateway (broker, database): every endpoint, the bearer
 * token, and the bad requests each one refuses with a JSON error naming the field. The steps build
 * on each other, in order, on one gateway.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "api"),
      @ResourceArg(name = "sentinel.api.token", value = ApiTest.TOKEN),
      // Low enough that a burst of 40 toggles suspends a rule, high enough for the other steps.
      @ResourceArg(name = "sentinel.limits.evaluations-per-rule", value = "30"),
      @ResourceArg(name = "sentinel.limits.evaluation-window", value = "1m")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiTest {
  static final String TOKEN = "s3cret-t0ken";
  private static final String OVERRIDE = "/api/v1/points/boiler.ch1.pump/override";
  private static final Duration WAIT = Duration.ofSeconds(15);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  private BrokerClient device;

  @Test
  @Order(1)
  void points_everyRegisteredPointWithTypeAndQuality_thenTheValueASensorSent() {
    given()
        .get("/api/v1/points")
        .then()
        .statusCode(200)
        .contentType("application/json")
        .body("id", hasItem("boiler.ch1.flow-temp"))
        .body("find { it.id == 'boiler.ch1.flow-temp' }.type", equalTo("number"))
        .body("find { it.id == 'boiler.ch1.flow-temp' }.unit", equalTo("degC"))
        .body("find { it.id == 'boiler.ch1.flow-temp' }.quality", equalTo("unknown"))
        .body("find { it.id == 'door.main.left-open' }.derived", equalTo(true));

    device().publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42}");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                given()
                    .get("/api/v1/points/boiler.ch1.flow-temp")
                    .then()
                    .statusCode(200)
                    .body("value", equalTo(42))
                    .body("quality", equalTo("live"))
                    .body("override", equalTo(null)));
  }

  @Test
  @Order(2)
  void claims_theFailSafeInterlockHoldsTheBurner_withItsBandAndDecidingKey() {
    given()
        .get("/api/v1/claims")
        .then()
        .statusCode(200)
        .body(
            "find { it.point == 'boiler.ch1.burner' }.winner.rule",
            equalTo("boiler-overheat-cutoff"))
        .body("find { it.point == 'boiler.ch1.burner' }.winner.band", equalTo("interlock"))
        .body("find { it.point == 'boiler.ch1.burner' }.deciding_key", equalTo("sole"))
        .body("find { it.point == 'boiler.ch1.burner' }.value", equalTo(false));
    given()
        .get("/api/v1/claims/boiler.ch1.burner")
        .then()
        .statusCode(200)
        .body("output.rule", equalTo("boiler-overheat-cutoff"));
  }

  @Test
  @Order(3)
  void rules_eachWithItsState_warmupUntilItsInputsAreLive() {
    List<String> states =
        given().get("/api/v1/rules").then().statusCode(200).extract().jsonPath().getList("state");
    assertThat(states)
        .isNotEmpty()
        .allMatch(
            s ->
                List.of("warmup", "active", "holding", "input-lost", "suspended", "disabled")
                    .contains(s));
    given()
        .get("/api/v1/rules/pump-run-on")
        .then()
        .statusCode(200)
        .body("state", equalTo("warmup"))
        .body("band", equalTo("automation"))
        .body("file", equalTo("rules/boiler.yaml"))
        .body("hash", notNullValue());

    device().publish(broker.topic("points/boiler.ch1.demand"), "false");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                given()
                    .get("/api/v1/rules/pump-run-on")
                    .then()
                    .body("state", equalTo("active"))
                    .body("last_condition", equalTo(true))
                    .body("claims.'boiler.ch1.pump'", equalTo(true)));
  }

  @Test
  @Order(4)
  void unknownPointOrRule_404NamingTheId() {
    for (String path :
        List.of(
            "/api/v1/points/no.such.point",
            "/api/v1/claims/no.such.point",
            "/api/v1/rules/no-such-rule")) {
      given()
          .get(path)
          .then()
          .statusCode(404)
          .contentType("application/json")
          .body("field", equalTo("id"))
          .body(
              "error",
              org.hamcrest.Matchers.containsString(path.substring(path.lastIndexOf('/') + 1)));
    }
  }

  @Test
  @Order(5)
  void validate_aGoodRuleFile_200WithItsRules() throws Exception {
    given()
        .contentType("application/yaml")
        .queryParam("file", "rules/boiler.yaml")
        .body(Files.readAllBytes(Path.of("rules/boiler.yaml")))
        .post("/api/v1/rules:validate")
        .then()
        .statusCode(200)
        .body("valid", equalTo(true))
        .body("rules", equalTo(3))
        .body("errors", equalTo(0));
    // JSON is YAML: the same rule as a JSON body.
    given()
        .contentType("application/json")
        .body(
            "[{\"id\": \"lamp\", \"band\": \"ambient\", \"inputs\": {\"d\": \"boiler.ch1.demand\"},"
                + " \"when\": \"d.value\", \"claims\": [{\"point\": \"boiler.ch1.pump\", \"value\":"
                + " true}], \"on_input_loss\": \"release\", \"warmup\": \"all_inputs_live\"}]")
        .post("/api/v1/rules:validate")
        .then()
        .statusCode(200)
        .body("rules", equalTo(1));
  }

  @Test
  @Order(6)
  void validate_errors_422WithEveryProblemAndItsLine() {
    String rule =
        "- id: pump-typo\n"
            + "  band: automation\n"
            + "  inputs: { flow: boiler.ch1.flow-tmp }\n"
            + "  when: flow.value > 35\n"
            + "  claims: [ { point: boiler.ch1.pump, value: true } ]\n"
            + "  colour: red\n";
    Response r =
        given()
            .contentType("text/plain")
            .body(rule.getBytes(StandardCharsets.UTF_8))
            .post("/api/v1/rules:validate");
    r.then()
        .statusCode(422)
        .body("valid", equalTo(false))
        .body("problems.file", hasItem("request.yaml"))
        .body("problems.line", hasItem(3))
        .body("problems.line", hasItem(6))
        .body("problems.severity", hasItem("error"));
    assertThat(r.jsonPath().getList("problems.message", String.class))
        .anyMatch(m -> m.contains("boiler.ch1.flow-tmp"))
        .anyMatch(m -> m.contains("unknown key 'colour'"));

    given()
        .contentType("application/yaml")
        .body("- id: [unclosed\n".getBytes(StandardCharsets.UTF_8))
        .post("/api/v1/rules:validate")
        .then()
        .statusCode(422)
        .body("problems[0].code", equalTo("YAML-001"));
  }

  @Test
  @Order(7)
  void validate_badBodies_4xxNamingTheField() {
    given()
        .contentType("application/yaml")
        .body("  ".getBytes(StandardCharsets.UTF_8))
        .post("/api/v1/rules:validate")
        .then()
        .statusCode(400)
        .body("field", equalTo("body"));
    given()
        .contentType("application/xml")
        .body("<rules/>".getBytes(StandardCharsets.UTF_8))
        .post("/api/v1/rules:validate")
        .then()
        .statusCode(415)
        .body("field", equalTo("Content-Type"));
    // A revision document: checked whole, as the ruleset topic checks it.
    String revision =
        "revision: 4\nsite: "
            + broker.site()
            + "\nrules:\n  - id: pump-on-demand\n    band: automation\n"
            + "    inputs: { demand: boiler.ch1.demand }\n"
            + "    trigger: { on: transition, of: demand }\n    when: demand.value\n"
            + "    claims: [ { point: boiler.ch1.pump, value: true } ]\n"
            + "    on_input_loss: release\n    warmup: all_inputs_live\n";
    given()
        .contentType("application/yaml")
        .body(revision.getBytes(StandardCharsets.UTF_8))
        .post("/api/v1/rules:validate")
        .then()
        .log()
        .ifValidationFails()
        .statusCode(200)
        .body("kind", equalTo("revision"))
        .body("rules", equalTo(1));
    given()
        .contentType("application/yaml")
        .body(
            revision
                .replace("site: " + broker.site(), "site: elsewhere")
                .replace("    when:", "    whenn:")
                .getBytes(StandardCharsets.UTF_8))
        .post("/api/v1/rules:validate")
        .then()
        .statusCode(422)
        .body("kind", equalTo("revision"))
        .body("problems.code", hasItem("REV-005"))
        .body("problems.find { it.line == 8 }.message", containsString("whenn"));
  }

  @Test
  @Order(8)
  void mutations_needTheBearerToken() {
    // Issue 17: every mutation answers 401 without a (bearer) token, 403 with a wrong one, and
    // never a stack trace: a JSON error naming the Authorization header, whatever else is wrong.
    String body = "{\"value\": true, \"expires_in\": \"10m\"}";
    Map<String, java.util.function.Function<RequestSpecification, Response>> mutations =
        Map.of(
            "PUT override",
            r -> r.contentType("application/json").body(body).put(OVERRIDE),
            "PUT override, a body it would refuse",
            r -> r.contentType("application/json").body("{\"value\": ").put(OVERRIDE),
            "DELETE override",
            r -> r.delete(OVERRIDE),
            "POST resume",
            r -> r.post("/api/v1/rules/pump-run-on:resume"),
            "POST resume of no such rule",
            r -> r.post("/api/v1/rules/no-such-rule:resume"));
    Map<String, Integer> credentials = new java.util.LinkedHashMap<>();
    credentials.put(null, 401);
    credentials.put("Basic " + TOKEN, 401);
    credentials.put("Bearer ", 401);
    credentials.put("Bearer wrong-token", 403);
    credentials.put("Bearer " + TOKEN + "x", 403);
    credentials.put("bearer " + TOKEN.toUpperCase(java.util.Locale.ROOT), 403);
    mutations.forEach(
        (what, send) ->
            credentials.forEach(
                (header, status) -> {
                  RequestSpecification r =
                      header == null ? given() : given().header("Authorization", header);
                  Response response = send.apply(r);
                  String text = response.asString();
                  assertThat(response.statusCode()).as(what + " with " + header).isEqualTo(status);
                  assertThat(response.contentType()).as(what).startsWith("application/json");
                  JsonObject error = new JsonObject(text);
                  assertThat(error.getString("field")).as(what).isEqualTo("Authorization");
                  assertThat(error.getString("error"))
                      .as(what)
                      .contains(status == 401 ? "Bearer <token>" : "not this gateway's API token");
                  assertThat(text)
                      .as(what + ": no stack trace")
                      .doesNotContain("Exception", "\tat ", "at io.", "at java.", ".java:");
                  if (status == 401) {
                    assertThat(response.header("WWW-Authenticate")).startsWith("Bearer");
                  }
                }));
    given()
        .get("/api/v1/points/boiler.ch1.pump")
        .then()
        .statusCode(200)
        .body("override", equalTo(null));
  }

  @Test
  @Order(9)
  void override_badRequests_4xxNamingTheField() {
    Map<String, List<Object>> cases =
        Map.ofEntries(
            Map.entry("{not json", List.of(400, "body")),
            Map.entry("[1, 2]", List.of(400, "body")),
            Map.entry("{\"expires_in\": \"10m\"}", List.of(400, "value")),
            Map.entry("{\"value\": {\"a\": 1}, \"expires_in\": \"10m\"}", List.of(400, "value")),
            Map.entry("{\"value\": true}", List.of(400, "expires_in")),
            Map.entry("{\"value\": true, \"expires_in\": \"soon\"}", List.of(400, "expires_in")),
            Map.entry("{\"value\": true, \"expires_in\": \"30d\"}", List.of(400, "expires_in")),
            Map.entry(
                "{\"value\": true, \"expires_in\": \"10m\", \"colour\": 1}",
                List.of(400, "colour")),
            Map.entry("{\"value\": true, \"expires_in\": \"10m\", \"by\": 7}", List.of(400, "by")),
            Map.entry("{\"value\": 42, \"expires_in\": \"10m\"}", List.of(422, "value")));
    cases.forEach(
        (body, expected) ->
            authorized()
                .contentType("application/json")
                .body(body)
                .put("/api/v1/points/boiler.ch1.pump/override")
                .then()
                .statusCode((Integer) expected.get(0))
                .body("field", equalTo(expected.get(1))));
    authorized()
        .contentType("application/json")
        .body("{\"value\": 50, \"expires_in\": \"10m\"}")
        .put("/api/v1/points/boiler.ch1.flow-temp/override")
        .then()
        .statusCode(422)
        .body("field", equalTo("point"))
        .body("error", containsString("input"));
    authorized()
        .contentType("application/json")
        .body("{\"value\": true, \"expires_in\": \"10m\"}")
        .put("/api/v1/points/no.such.point/override")
        .then()
        .statusCode(404)
        .body("field", equalTo("id"));
    authorized()
        .delete("/api/v1/points/boiler.ch1.pump/override")
        .then()
        .statusCode(404)
        .body("field", equalTo("id"))
        .body("error", containsString("no override"));
  }

  @Test
  @Order(10)
  void override_winsInTheOperatorBand_isCommanded_thenClearedBackToTheRule() {
    Instant asked = Instant.now();
    String until =
        authorized()
            .contentType("application/json")
            .body(
                "{\"value\": false, \"expires_in\": \"10m\", \"by\": \"alice\", \"reason\": \"service\"}")
            .put("/api/v1/points/boiler.ch1.pump/override")
            .then()
            .statusCode(200)
            .body("value", equalTo(false))
            .body("by", equalTo("alice"))
            .body("rule", equalTo("override:operator"))
            .extract()
            .path("until");
    // Ten minutes from when it was asked, not from the idle engine's last pass.
    assertThat(Instant.parse(until)).isAfterOrEqualTo(asked.plus(Duration.ofMinutes(10)));

    JsonObject command =
        awaitCommand("boiler.ch1.pump", c -> "override:operator".equals(c.getString("rule")));
    assertThat(command.getValue("value")).isEqualTo(false);
    assertThat(command.getString("band")).isEqualTo("operator");
    given()
        .get("/api/v1/claims/boiler.ch1.pump")
        .then()
        .body("winner.rule", equalTo("override:operator"))
        .body("deciding_key", equalTo("band"))
        .body("contenders.rule", hasItem("pump-run-on"));
    given()
        .get("/api/v1/points/boiler.ch1.pump")
        .then()
        .body("override.by", equalTo("alice"))
        .body("override.value", equalTo(false));

    authorized()
        .delete("/api/v1/points/boiler.ch1.pump/override")
        .then()
        .statusCode(200)
        .body("cleared", equalTo(true));
    JsonObject back =
        awaitCommand(
            "boiler.ch1.pump",
            c ->
                "pump-run-on".equals(c.getString("rule"))
                    && Boolean.TRUE.equals(c.getValue("value")));
    assertThat(back.getString("band")).isEqualTo("automation");
    assertThat(events("override-set"))
        .anyMatch(e -> e.getString("subject").equals("boiler.ch1.pump"));
    assertThat(events("override-cleared"))
        .anyMatch(e -> e.getString("subject").equals("boiler.ch1.pump"));
  }

  @Test
  @Order(11)
  void resume_onlyASuspendedRule_andItDecidesAgain() {
    authorized()
        .post("/api/v1/rules/burner-on-demand:resume")
        .then()
        .statusCode(409)
        .body("field", equalTo("id"))
        .body("error", containsString("not suspended"));
    authorized().post("/api/v1/rules/no-such-rule:resume").then().statusCode(404);

    // A contact that chatters: 40 changes within the window suspend the rules that read it.
    for (int k = 0; k < 40; k++) {
      device().publish(broker.topic("points/boiler.ch1.demand"), k % 2 == 0 ? "true" : "false");
    }
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                given()
                    .get("/api/v1/rules/burner-on-demand")
                    .then()
                    .body("state", equalTo("suspended")));

    authorized()
        .post("/api/v1/rules/burner-on-demand:resume")
        .then()
        .statusCode(200)
        .body("id", equalTo("burner-on-demand"))
        .body("state", equalTo("active"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                events("rule-resumed").stream()
                    .anyMatch(e -> e.getString("subject").equals("burner-on-demand")));
  }

  @Test
  @Order(12)
  void audit_ndjsonInChainOrder_pagedByTimeAndSeq_withTheOverrideRecorded() {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(auditLines(given().queryParam("limit", 10000)))
                    .anyMatch(l -> l.getString("kind").equals("override"))
                    .anyMatch(
                        l ->
                            l.getString("kind").equals("resume")
                                && l.getString("rule_id").equals("burner-on-demand")));
    List<JsonObject> all = auditLines(given().queryParam("limit", 10000));
    assertThat(all).extracting(l -> l.getLong("seq")).isSorted();
    JsonObject override =
        all.stream().filter(l -> l.getString("kind").equals("override")).findFirst().orElseThrow();
    assertThat(override.getString("rule_id")).isEqualTo("override:operator");
    assertThat(override.getString("reason")).contains("alice", "service");

    Response first = given().queryParam("limit", 2).get("/api/v1/audit");
    first.then().statusCode(200).contentType(startsWith("application/x-ndjson"));
    assertThat(first.header("Link")).contains("after=" + all.get(1).getLong("seq"), "rel=\"next\"");
    List<JsonObject> second =
        auditLines(given().queryParam("limit", 2).queryParam("after", all.get(1).getLong("seq")));
    assertThat(second.get(0).getLong("seq")).isEqualTo(all.get(2).getLong("seq"));

    Instant overrideAt = Instant.parse(override.getString("ts"));
    List<JsonObject> window =
        auditLines(
            given()
                .queryParam("from", overrideAt.toString())
                .queryParam("to", overrideAt.plusMillis(1).toString()));
    assertThat(window)
        .isNotEmpty()
        .allMatch(l -> Instant.parse(l.getString("ts")).equals(overrideAt));
    assertThat(auditLines(given().queryParam("from", "2999-01-01T00:00:00Z"))).isEmpty();
  }

  @Test
  @Order(13)
  void audit_badPagingParameters_400NamingTheParameter() {
    Map<String, String[]> cases =
        Map.of(
            "from", new String[] {"from", "yesterday"},
            "to", new String[] {"to", "2026-13-01T00:00:00Z"},
            "limit", new String[] {"limit", "0"},
            "after", new String[] {"after", "-1"});
    cases.forEach(
        (field, param) ->
            given()
                .queryParam(param[0], param[1])
                .get("/api/v1/audit")
                .then()
                .statusCode(400)
                .contentType("application/json")
                .body("field", equalTo(field)));
    for (String limit : Arrays.asList("abc", "10001")) {
      given()
          .queryParam("limit", limit)
          .get("/api/v1/audit")
          .then()
          .statusCode(400)
          .body("field", equalTo("limit"));
    }
    given()
        .queryParam("from", "2026-11-30T10:00:00Z")
        .queryParam("to", "2026-11-30T09:00:00Z")
        .get("/api/v1/audit")
        .then()
        .statusCode(400)
        .body("field", equalTo("to"));
  }

  @Test
  @Order(14)
  void auditVerify_theGatewaysOwnChainIsIntact() {
    given()
        .get("/api/v1/audit:verify")
        .then()
        .statusCode(200)
        .body("intact", equalTo(true))
        .body("broken", equalTo(null))
        .body("head", notNullValue())
        .body("message", startsWith("intact: "));
    int checked = given().get("/api/v1/audit:verify").jsonPath().getInt("checked");
    assertThat(checked)
        .isGreaterThanOrEqualTo(auditLines(given().queryParam("limit", 10000)).size());
  }

  @Test
  @Order(15)
  void healthMetricsAndDashboard() {
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body("checks.name", hasItem("sentinel-mqtt"))
        .body("checks.name", hasItem("sentinel-database"))
        .body("checks.find { it.name == 'sentinel-database' }.status", equalTo("UP"));
    given()
        .get("/q/health/live")
        .then()
        .statusCode(200)
        .body("checks.name", hasItem("sentinel-engine"));
    given()
        .get("/q/metrics")
        .then()
        .statusCode(200)
        .body(containsString("sentinel_engine_passes_total"));
    given()
        .get("/")
        .then()
        .statusCode(200)
        .contentType(startsWith("text/html"))
        .body(containsString("page/app.js"));
    given()
        .get("/page/app.js")
        .then()
        .statusCode(200)
        .body(containsString("new EventSource(\"api/v1/stream\")"));
  }

  private RequestSpecification authorized() {
    return given().header("Authorization", "Bearer " + TOKEN);
  }

  private static List<JsonObject> auditLines(RequestSpecification request) {
    String body = request.get("/api/v1/audit").then().statusCode(200).extract().asString();
    return body.lines().filter(l -> !l.isBlank()).map(JsonObject::new).toList();
  }

  private BrokerClient device() {
    if (device == null) {
      device = broker.client("device");
    }
    return device;
  }

  private JsonObject awaitCommand(String point, java.util.function.Predicate<JsonObject> which) {
    String topic = broker.topic("commands/" + point);
    await()
        .atMost(WAIT)
        .until(
            () ->
                broker.recorder().on(topic).stream()
                    .map(BrokerClient.Received::json)
                    .anyMatch(which));
    return broker.recorder().on(topic).stream()
        .map(BrokerClient.Received::json)
        .filter(which)
        .findFirst()
        .orElseThrow();
  }

  private List<JsonObject> events(String kind) {
    return broker.recorder().on(broker.topic("events/" + kind)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }
}
