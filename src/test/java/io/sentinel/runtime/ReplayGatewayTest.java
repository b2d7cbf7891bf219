package io.sentinel.runtime;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.cli.CliRunner;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionKeys;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Replay through the real broker and PostgreSQL (issue 16, docs/replay.md): a window holding a
 * restart (in this JVM: {@link Gateway#restart()}, a clean stop and a cold start), an operator
 * override and a pushed revision, replayed with the rules that ran, matches every command and claim
 * of the window; with one threshold changed, it shows exactly the differences that threshold makes.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "replay"),
      @ResourceArg(name = "sentinel.gpio.platform", value = "off"),
      @ResourceArg(name = "sentinel.api.token", value = ReplayGatewayTest.TOKEN),
      @ResourceArg(
          name = "sentinel.ruleset.keys-file",
          value = "src/test/resources/revisions/keys.yaml")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplayGatewayTest {
  static final String TOKEN = "replay-gateway-token";
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String PUMP = "boiler.ch1.pump";
  private static final String BURNER = "boiler.ch1.burner";
  private static final String STRIKE = "door.main.strike";
  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  private BrokerClient device;
  private Instant from;
  private Instant to;
  private long pushed;

  @BeforeAll
  void setUp() {
    device = broker.client("device");
  }

  @Test
  @Order(1)
  void aWindowWithARestartAndAPush_replayedWithTheRulesThatRan_matchesEveryCommandAndClaim()
      throws Exception {
    from = Instant.now();
    long revision = gateway.activeRevision();
    boiler(42, 1.5, true);
    lockdown();
    awaitCommand(BURNER, c -> Boolean.TRUE.equals(c.getValue("value")));
    override(PUMP, false);
    awaitCommand(PUMP, c -> "override:operator".equals(c.getString("rule")));
    int burnerBefore = commands(BURNER).size();
    // Fresh samples just before the stop, so that no input goes stale (30 s) before it: what the
    // lowered cut-off changes is then the same however long the restart takes on a loaded machine.
    boiler(42, 1.5, true);
    Thread.sleep(300);

    gateway.restart();
    // Cold: the interlock holds the burner off until its inputs are live again.
    await().atMost(WAIT).until(() -> commands(BURNER).size() > burnerBefore);
    boiler(42, 1.5, true);
    lockdown();
    await().atMost(WAIT).until(() -> lastValue(BURNER, true));

    // A pushed revision: the strike's pulse is 4 s from here.
    String rules =
        Site.read(Path.of("rules/boiler.yaml"))
            + Site.read(Path.of("rules/door.yaml")).replace("duration: 3s", "duration: 4s");
    String doc = "revision: " + (revision + 1) + "\nsite: " + broker.site() + "\nrules:\n" + rules;
    String signed =
        RevisionDocument.withSignature(
            doc,
            RevisionKeys.privateKey(Site.read(Path.of("src/test/resources/revisions/ops.key"))));
    device
        .publishAsync(
            broker.topic("ruleset"), signed.getBytes(java.nio.charset.StandardCharsets.UTF_8), true)
        .join();
    await().atMost(WAIT).until(() -> gateway.activeRevision() == revision + 1);
    pushed = revision + 1;
    lockdown();
    Thread.sleep(1000);
    device.publish(broker.topic("points/door.main.button"), "true");
    awaitCommand(STRIKE, c -> Long.valueOf(4000).equals(c.getLong("pulse_ms")));
    device.publish(broker.topic("points/door.main.button"), "false");
    Thread.sleep(1500);
    assertThat(gateway.journal().orElseThrow().drain(WAIT)).isTrue();
    to = Instant.now();

    CliRunner run = replay();
    assertThat(run.exit()).as(run.output()).isZero();
    long commandsInWindow =
        broker
            .database()
            .count(
                "SELECT (SELECT count(*) FROM decisions WHERE at >= '"
                    + from
                    + "' AND at <= '"
                    + to
                    + "') + (SELECT count(*) FROM actions WHERE kind IN ('pulse', 'fade') AND at"
                    + " >= '"
                    + from
                    + "' AND at <= '"
                    + to
                    + "')");
    long claimsInWindow =
        broker
            .database()
            .count(
                "SELECT count(*) FROM claim_changes WHERE at >= '"
                    + from
                    + "' AND at <= '"
                    + to
                    + "'");
    assertThat(commandsInWindow).isGreaterThanOrEqualTo(6);
    assertThat(run.output())
        .contains("the rules that ran (2 start(s), 1 activation(s), 1 override request(s)")
        .contains(commandsInWindow + " matched, 0 only in replay, 0 only in history")
        .contains("claims: " + claimsInWindow + " matched, 0 only in replay, 0 only in history");
  }

  @Test
  @Order(2)
  void theSameWindow_withTheCutOffPressureLowered_showsExactlyTheBurnerHeldOff() throws Exception {
    Path site = Files.createDirectories(Path.of("target/scratch/replay-" + broker.site()));
    Files.createDirectories(site.resolve("rules"));
    Files.createDirectories(site.resolve("seeds"));
    for (String f : List.of("seeds/points.yaml", "seeds/derived.yaml", "seeds/site.yaml")) {
      Files.copy(Path.of(f), site.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    // The rules that ran after the push, the interlock's pressure threshold lowered below 1.5 bar.
    Files.writeString(
        site.resolve("rules/boiler.yaml"),
        Site.read(Path.of("rules/boiler.yaml"))
            .replace("pressure.value >= 2.8 bar", "pressure.value >= 1.4 bar"));
    Files.writeString(
        site.resolve("rules/door.yaml"),
        Site.read(Path.of("rules/door.yaml")).replace("duration: 3s", "duration: 4s"));
    CliRunner run = replay("--rules", site.toString(), "--site", ".");
    assertThat(run.exit()).as(run.output()).isEqualTo(1);
    List<String> differences = run.output().lines().filter(l -> l.startsWith("only in ")).toList();
    // History let the burner go when the interlock's inputs came live at 1.5 bar and fired it on
    // demand, before the restart and after it; the replay's interlock, cutting off at 1.4 bar,
    // never let go. Nothing else differs: not the pump, its override, the restart or the push.
    assertThat(differences)
        .as(run.output())
        .filteredOn(l -> !l.contains("claim "))
        .hasSize(4)
        .allMatch(l -> l.startsWith("only in history"))
        .filteredOn(l -> l.contains(BURNER + " := true (burner-on-demand, automation)"))
        .hasSize(2);
    assertThat(differences)
        .as(run.output())
        .filteredOn(l -> !l.contains("claim "))
        .filteredOn(l -> l.contains(BURNER + " released to false"))
        .hasSize(2);
    assertThat(differences)
        .as(run.output())
        .filteredOn(l -> l.contains("claim "))
        .hasSize(2)
        .allMatch(
            l ->
                l.startsWith("only in history")
                    && l.contains(
                        "claim " + BURNER + " released by boiler-overheat-cutoff (interlock)"));
    // The pushed revision (rebuilt from its stored document over the files revision before it)
    // in place of every rule set of the window: the strike was pressed only after the push, so
    // nothing differs.
    CliRunner stored = replay("--revision", Long.toString(pushed));
    assertThat(stored.exit()).as(stored.output()).isZero();
    assertThat(stored.output()).contains("with revision " + pushed);
    assertThat(run.output())
        .containsPattern("(?m)^\\d+ matched, 0 only in replay, 4 only in history$")
        .containsPattern("(?m)^claims: \\d+ matched, 0 only in replay, 2 only in history$");
  }

  @Test
  @Order(3)
  void why_namesTheRule_itsInputs_theKey_andTheContenders_liveAndFromTheLog() throws Exception {
    given()
        .header("Authorization", "Bearer " + TOKEN)
        .delete("/api/v1/points/" + PUMP + "/override")
        .then()
        .statusCode(200);
    boiler(42, 1.5, false);
    await().atMost(WAIT).until(() -> "pump-run-on".equals(why(PUMP).getString("rule")));
    JsonObject pump = why(PUMP);
    assertThat(pump.getString("source")).isEqualTo("engine");
    assertThat(pump.getValue("value")).isEqualTo(true);
    assertThat(pump.getString("band")).isEqualTo("automation");
    assertThat(pump.getJsonArray("inputs").stream().map(String::valueOf))
        .anySatisfy(i -> assertThat(i).contains("\"name\":\"flow\"", "42", "\"quality\":\"live\""))
        .anySatisfy(
            i -> assertThat(i).contains("\"name\":\"demand\"", "false", "\"quality\":\"live\""));
    assertThat(pump.getJsonArray("contenders")).hasSize(1);
    assertThat(pump.getString("deciding_key")).isEqualTo("sole");
    // The command follows once the pump's min_interval (2 s) since the last one has passed.
    await()
        .atMost(WAIT)
        .until(
            () -> {
              JsonObject c = why(PUMP).getJsonObject("command");
              return c != null && Boolean.TRUE.equals(c.getValue("value"));
            });
    assertThat(why(PUMP).getJsonObject("command").getString("kind")).isEqualTo("assert");
    // Its delivery state: the broker acknowledged the command.
    await()
        .atMost(WAIT)
        .until(() -> "delivered".equals(why(PUMP).getJsonObject("command").getString("state")));

    // The burner: an operator holds it on, the interlock holds it off over the override.
    override(BURNER, true);
    device.publish(broker.topic("points/boiler.ch1.pressure"), "3.0");
    await()
        .atMost(WAIT)
        .until(() -> "boiler-overheat-cutoff".equals(why(BURNER).getString("rule")));
    await().atMost(WAIT).until(() -> why(BURNER).getJsonArray("contenders").size() == 2);
    JsonObject burner = why(BURNER);
    assertThat(burner.getValue("value")).isEqualTo(false);
    assertThat(burner.getString("band")).isEqualTo("interlock");
    assertThat(burner.getString("deciding_key")).isEqualTo("band");
    assertThat(burner.getJsonArray("inputs").stream().map(String::valueOf))
        .anySatisfy(
            i -> assertThat(i).contains("\"name\":\"pressure\"", "3", "\"quality\":\"live\""))
        .anySatisfy(i -> assertThat(i).contains("\"name\":\"flow\"", "42", "\"quality\":\"live\""));
    assertThat(burner.getJsonArray("contenders").stream().map(String::valueOf))
        .anySatisfy(c -> assertThat(c).contains("boiler-overheat-cutoff", "interlock", "false"))
        .anySatisfy(c -> assertThat(c).contains("override:operator", "operator", "true"));

    // The interlock's command out and acknowledged by the broker.
    await()
        .atMost(WAIT)
        .until(
            () -> {
              JsonObject c = why(BURNER).getJsonObject("command");
              return c != null
                  && Boolean.FALSE.equals(c.getValue("value"))
                  && "delivered".equals(c.getString("state"));
            });

    // The same from the log, by `sentinel why --at`, and by the API's ?at=.
    assertThat(gateway.journal().orElseThrow().drain(WAIT)).isTrue();
    Instant now = Instant.now();
    CliRunner cli =
        CliRunner.run("why", BURNER, "--at", now.toString(), "--db", broker.database().configUrl());
    assertThat(cli.exit()).as(cli.output()).isZero();
    assertThat(cli.output())
        .contains(BURNER + " = false")
        .contains("rule     boiler-overheat-cutoff (interlock, priority 0)")
        .containsPattern("input    pressure = boiler.ch1.pressure 3(\\.0)? live")
        .containsPattern("input    flow = boiler.ch1.flow-temp 42(\\.0)? live")
        .contains("key      band")
        .contains("claim    boiler-overheat-cutoff (interlock, priority 0) := false")
        .contains("claim    override:operator (operator, priority 100) := true")
        .containsPattern("command  assert false \\S+ issued \\S+: delivered");
    JsonObject logged =
        new JsonObject(
            given()
                .queryParam("at", now.toString())
                .get("/api/v1/points/" + BURNER + "/why")
                .then()
                .statusCode(200)
                .extract()
                .asString());
    assertThat(logged.getString("source")).isEqualTo("log");
    assertThat(logged.getString("rule")).isEqualTo("boiler-overheat-cutoff");
    assertThat(logged.getString("deciding_key")).isEqualTo("band");
    // Before the override, at the end of the first window, the burner ran on demand.
    CliRunner before =
        CliRunner.run("why", BURNER, "--at", to.toString(), "--db", broker.database().configUrl());
    assertThat(before.output()).contains("rule     burner-on-demand (automation");
    given().get("/api/v1/points/no.such.point/why").then().statusCode(404);
    given()
        .queryParam("at", "yesterday")
        .get("/api/v1/points/" + BURNER + "/why")
        .then()
        .statusCode(400);
  }

  private JsonObject why(String point) {
    return new JsonObject(
        given()
            .get("/api/v1/points/" + point + "/why")
            .then()
            .statusCode(200)
            .extract()
            .asString());
  }

  private void boiler(double flow, double pressure, boolean demand) {
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": " + flow + "}");
    device.publish(broker.topic("points/boiler.ch1.pressure"), Double.toString(pressure));
    device.publish(broker.topic("points/boiler.ch1.demand"), Boolean.toString(demand));
  }

  private void lockdown() {
    device.publish(broker.topic("points/door.main.lockdown"), "false");
    device.publish(broker.topic("points/door.main.button"), "false");
  }

  private CliRunner replay(String... more) {
    return CliRunner.replay(from, to, broker.database().configUrl(), more);
  }

  private String override(String point, boolean value) {
    return given()
        .header("Authorization", "Bearer " + TOKEN)
        .contentType("application/json")
        .body(
            new JsonObject()
                .put("value", value)
                .put("expires_in", "2h")
                .put("by", "alice")
                .put("reason", "service")
                .encode())
        .put("/api/v1/points/" + point + "/override")
        .then()
        .statusCode(200)
        .extract()
        .path("until");
  }

  private void awaitCommand(String point, java.util.function.Predicate<JsonObject> which) {
    await().atMost(WAIT).until(() -> commands(point).stream().anyMatch(which));
  }

  private boolean lastValue(String point, Object value) {
    List<JsonObject> all = commands(point);
    return !all.isEmpty() && value.equals(all.get(all.size() - 1).getValue("value"));
  }

  private List<JsonObject> commands(String point) {
    return broker.recorder().on(broker.topic("commands/" + point)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }
}
