package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.cli.CliRunner;
import io.sentinel.site.Site;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Shadow mode through the real broker and PostgreSQL (docs/shadow.md): a signed {@code mode:
 * shadow} revision with another pump threshold runs beside the active set on the live stream,
 * reports exactly the claim and the command where the two part (and when they meet again), and
 * sends no command; a restart keeps it; a newer shadow replaces it; {@code sentinel promote}
 * activates it and the gateway then decides as the report said; a shadow revision that fails a
 * check is rejected like any other. The steps build on each other, in order, on one gateway.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "shadow"),
      @ResourceArg(
          name = "sentinel.ruleset.keys-file",
          value = "src/test/resources/revisions/keys.yaml")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShadowModeGatewayTest {
  // Generous: the first requests of a cold JVM on a loaded 2-core machine take seconds.
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String RULES =
      Site.read(Path.of("rules/boiler.yaml")) + Site.read(Path.of("rules/door.yaml"));
  private static final String PUMP = "boiler.ch1.pump";
  private static final String FLOW = "zigbee2mqtt/boiler-flow";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  private Path dir;
  private RevisionCli cli;
  private BrokerClient device;
  private BrokerClient watcher;
  private long start;
  private Path newer;

  @BeforeAll
  void setUp() throws IOException {
    dir = Files.createDirectories(Path.of("target/scratch/shadow-it-" + broker.site()));
    cli = new RevisionCli(broker, dir);
    device = broker.client("device");
    watcher =
        broker
            .client("watcher")
            .subscribe(broker.topic("ruleset/status"), broker.topic("ruleset/shadow"));
    start = gateway.activeRevision();
  }

  @AfterAll
  void tearDown() {
    device.close();
    watcher.close();
  }

  @Test
  @Order(1)
  void candidate_reportsExactlyTheDecisionsThatDiffer_andSendsNoCommand() throws IOException {
    device.publish(FLOW, "{\"temperature\": 30}");
    device.publish(broker.topic("points/boiler.ch1.demand"), "false");
    await().atMost(WAIT).until(() -> ruleActive("pump-run-on"));
    int commandsBefore = commands().size();

    CliRunner push = push(shadowDoc(start + 1, "flow.value > 45"), "ops", null);
    assertThat(push.exit()).as(push.output()).isZero();
    assertThat(push.output())
        .contains("revision " + (start + 1) + " runs in shadow beside revision " + start);
    JsonObject status = last("ruleset/status");
    assertThat(status.getString("state")).isEqualTo("shadow");
    assertThat(status.getLong("active_revision")).isEqualTo(start);
    assertThat(gateway.activeRevision()).isEqualTo(start);
    await().atMost(WAIT).until(() -> summary().getLong("revision") == start + 1);
    assertThat(summary().getString("state")).isEqualTo("running");
    assertThat(summary().getJsonArray("open")).isEmpty(); // 30 degC: neither claims the pump

    // 40 degC: the active set (> 35) runs the pump, the shadow (> 45) would not.
    device.publish(FLOW, "{\"temperature\": 40}");
    await().atMost(WAIT).until(() -> diffEvents().size() >= 2);
    assertThat(commands()).hasSize(commandsBefore + 1);
    assertThat(commands().get(commandsBefore).json().getValue("value")).isEqualTo(true);
    await().atMost(WAIT).until(() -> summary().getJsonArray("open").size() == 2);
    List<JsonObject> open = list(summary().getJsonArray("open"));
    assertThat(open)
        .extracting(
            o -> o.getString("about") + " " + o.getString("point") + " " + o.getString("rule"))
        .containsExactlyInAnyOrder(
            "claim " + PUMP + " pump-run-on", "command " + PUMP + " pump-run-on");
    JsonObject command =
        open.stream().filter(o -> o.getString("about").equals("command")).findFirst().orElseThrow();
    assertThat(command.getValue("active")).isEqualTo(true);
    assertThat(command.getValue("shadow")).isNull();
    assertThat(command.getString("active_rule")).isEqualTo("pump-run-on");
    assertThat(command.getString("shadow_rule")).isNull();
    assertThat(command.getString("state")).isEqualTo("differs");
    assertThat(command.getString("at")).isNotBlank();
    // Exactly these two, nothing about the burner, the valve or the door.
    assertThat(diffEvents()).hasSize(2);
    assertThat(diffEvents()).allSatisfy(e -> assertThat(e.getString("point")).isEqualTo(PUMP));
    assertThat(diffEvents().get(0).getLong("revision")).isEqualTo(start + 1);

    // 50 degC: both run the pump; they agree again and say so.
    device.publish(FLOW, "{\"temperature\": 50}");
    await().atMost(WAIT).until(() -> diffEvents().size() >= 4);
    assertThat(diffEvents().subList(2, 4))
        .allSatisfy(e -> assertThat(e.getString("state")).isEqualTo("agrees"));
    await().atMost(WAIT).until(() -> summary().getJsonArray("open").isEmpty());

    // 40 again: the shadow releases the pump, the active set keeps it.
    device.publish(FLOW, "{\"temperature\": 40}");
    await().atMost(WAIT).until(() -> summary().getJsonArray("open").size() == 2);
    assertThat(diffEvents()).hasSize(6);
    // The shadow commanded the pump on at 50 and released it at 40: recorded, never sent.
    assertThat(summary().getLong("commands_recorded")).isGreaterThanOrEqualTo(2);
    assertThat(commands()).hasSize(commandsBefore + 1);
    assertThat(commands()).noneSatisfy(c -> assertThat(c.text()).contains("shadow"));
    assertThat(apiShadow().getString("state")).isEqualTo("running");
    assertThat(apiShadow().getJsonArray("open")).hasSize(2);
  }

  @Test
  @Order(2)
  void restart_keepsTheShadow() {
    String since = summary().getString("since");
    gateway.restart();
    await().atMost(WAIT).until(() -> apiShadow().getString("state").equals("running"));
    assertThat(apiShadow().getLong("revision")).isEqualTo(start + 1);
    assertThat(apiShadow().getString("since")).isEqualTo(since);
    // Both start cold; once the inputs are live again, the same difference is back.
    device.publish(FLOW, "{\"temperature\": 40}");
    device.publish(broker.topic("points/boiler.ch1.demand"), "false");
    await().atMost(WAIT).until(() -> apiShadow().getJsonArray("open").size() == 2);
    assertThat(broker.database().rows("SELECT revision, state FROM ruleset_shadow ORDER BY id"))
        .containsExactly(List.of(Long.toString(start + 1), "running"));
    // The retained shadow document, delivered again after the restart, changes nothing.
    assertThat(gateway.activeRevision()).isEqualTo(start);
  }

  @Test
  @Order(3)
  void newerShadow_replacesTheOldOne() throws IOException {
    newer = Files.writeString(dir.resolve("newer.yaml"), shadowDoc(start + 2, "flow.value > 44"));
    CliRunner push = push(Files.readString(newer), "ops", null);
    assertThat(push.exit()).as(push.output()).isZero();
    await().atMost(WAIT).until(() -> apiShadow().getLong("revision") == start + 2);
    assertThat(apiShadow().getString("state")).isEqualTo("running");
    assertThat(broker.database().rows("SELECT revision, state FROM ruleset_shadow ORDER BY id"))
        .containsExactly(
            List.of(Long.toString(start + 1), "replaced"),
            List.of(Long.toString(start + 2), "running"));
    // 40 degC still parts the two: the new shadow reports it from its own start.
    await().atMost(WAIT).until(() -> apiShadow().getJsonArray("open").size() == 2);
  }

  @Test
  @Order(4)
  void promote_activatesIt_andTheGatewayDecidesAsTheReportSaid() throws IOException {
    JsonObject said =
        list(apiShadow().getJsonArray("open")).stream()
            .filter(o -> o.getString("about").equals("command"))
            .findFirst()
            .orElseThrow();
    // The shadow would release the pump (to its release value, once it has commanded it).
    assertThat(said.getValue("active")).isEqualTo(true);
    assertThat(said.getValue("shadow")).isNotEqualTo(true);
    assertThat(said.getString("shadow_rule")).isNull();
    int before = commands().size();

    CliRunner wrong = promote(start + 1, null);
    assertThat(wrong.exit()).as(wrong.output()).isEqualTo(1);
    assertThat(wrong.output()).contains("no shadow revision " + (start + 1));

    CliRunner promote = promote(start + 2, null);
    assertThat(promote.exit()).as(promote.output()).isZero();
    assertThat(promote.output()).contains("revision " + (start + 2) + " active (signed by ops)");
    assertThat(gateway.activeRevision()).isEqualTo(start + 2);
    await().atMost(WAIT).until(() -> commands().size() > before);
    assertThat(commands().get(before).json().getString("kind")).isEqualTo("release");
    await().atMost(WAIT).until(() -> apiShadow().getString("state").equals("promoted"));
    assertThat(summary().getString("state")).isEqualTo("promoted");
    assertThat(
            broker
                .database()
                .rows("SELECT revision, state, ended_by FROM ruleset_shadow ORDER BY id"))
        .containsExactly(
            List.of(Long.toString(start + 1), "replaced", Long.toString(start + 2)),
            List.of(Long.toString(start + 2), "promoted", Long.toString(start + 2)));
    assertThat(
            broker.database().rows("SELECT revision FROM ruleset_revisions WHERE state = 'active'"))
        .containsExactly(List.of(Long.toString(start + 2)));
    // The promoted rules are the shadow's: at 40 degC the pump rule no longer claims.
    assertThat(
            io.restassured.RestAssured.get("/api/v1/rules/pump-run-on")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getMap("claims"))
        .isEmpty();
  }

  @Test
  @Order(5)
  void shadowRevisionsFailingAChecks_areRejectedLikeAnyOther() throws IOException {
    CliRunner unsigned = push(shadowDoc(start + 3, "flow.value > 41"), null, null);
    assertThat(unsigned.exit()).as(unsigned.output()).isEqualTo(1);
    assertThat(unsigned.output()).contains("[REV-020]");
    CliRunner unknown =
        push(shadowDoc(start + 3, "flow.value > 41") + "comment: no\n", "ops", null);
    assertThat(unknown.output()).contains("[YAML-015]", "unknown key 'comment'");
    CliRunner badMode =
        push(
            shadowDoc(start + 3, "flow.value > 41").replace("mode: shadow", "mode: trial"),
            "ops",
            null);
    assertThat(badMode.output()).contains("[REV-111]");
    CliRunner stale = push(shadowDoc(start + 2, "flow.value > 41"), "ops", null);
    assertThat(stale.output()).contains("[REV-030]");
    CliRunner interlock =
        push(
            shadowDoc(start + 3, "flow.value > 41").replace(">= 95 degC", ">= 90 degC"),
            "ops",
            null);
    assertThat(interlock.output()).contains("[REV-022]");
    JsonObject status = last("ruleset/status");
    assertThat(status.getString("state")).isEqualTo("rejected");
    assertThat(status.getLong("active_revision")).isEqualTo(start + 2);
    assertThat(broker.database().rows("SELECT reason FROM ruleset_rejections ORDER BY id"))
        .containsExactly(
            List.of("unsigned"),
            List.of("invalid"),
            List.of("invalid"),
            List.of("stale"),
            List.of("unreviewed"));
    assertThat(
            broker
                .database()
                .count(
                    "SELECT count(*) FROM ruleset_rejections WHERE document LIKE '%mode: shadow%'"))
        .isEqualTo(4);
    assertThat(gateway.activeRevision()).isEqualTo(start + 2);
    assertThat(apiShadow().getString("state")).isEqualTo("promoted");

    // Above a running shadow, a newer one needs a number above it too.
    assertThat(push(shadowDoc(start + 5, "flow.value > 41"), "ops", null).exit()).isZero();
    CliRunner older = push(shadowDoc(start + 4, "flow.value > 42"), "ops", null);
    assertThat(older.exit()).isEqualTo(1);
    assertThat(older.output())
        .contains("[REV-110]", "not newer than the shadow revision " + (start + 5));
  }

  private String shadowDoc(long revision, String condition) {
    return "revision: "
        + revision
        + "\nsite: "
        + broker.site()
        + "\nmode: shadow\nrules:\n"
        + RULES.replace("flow.value > 35", condition);
  }

  private CliRunner push(String document, String keyName, String reviewKeyName) throws IOException {
    return cli.push(document, keyName, reviewKeyName);
  }

  private CliRunner promote(long revision, Path from) {
    return cli.promote(revision, from);
  }

  private JsonObject last(String suffix) {
    await().atMost(WAIT).until(() -> watcher.last(broker.topic(suffix)).isPresent());
    return watcher.last(broker.topic(suffix)).orElseThrow().json();
  }

  private JsonObject summary() {
    return last("ruleset/shadow");
  }

  private List<BrokerClient.Received> commands() {
    return broker.recorder().on(broker.topic("commands/" + PUMP));
  }

  private List<JsonObject> diffEvents() {
    return broker.recorder().on(broker.topic("events/shadow-diff")).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }

  private static List<JsonObject> list(JsonArray a) {
    List<JsonObject> l = new ArrayList<>();
    a.forEach(o -> l.add((JsonObject) o));
    return l;
  }

  private static JsonObject apiShadow() {
    return new JsonObject(
        io.restassured.RestAssured.get("/api/v1/shadow")
            .then()
            .statusCode(200)
            .extract()
            .asString());
  }

  private static boolean ruleActive(String rule) {
    return "active"
        .equals(
            io.restassured.RestAssured.get("/api/v1/rules/" + rule)
                .then()
                .statusCode(200)
                .extract()
                .path("state"));
  }
}
