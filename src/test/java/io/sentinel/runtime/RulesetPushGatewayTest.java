package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.cli.CliRunner;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Remote rule push through the real broker (CONTRACT section 4, docs/revisions.md): {@code sentinel
 * push} publishes a revision retained, the gateway validates it whole, checks its signature against
 * the site's trusted keys and activates it between two passes, or rejects it with every problem
 * while the active set runs on unchanged. The steps build on each other, in order, on one gateway.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "push"),
      @ResourceArg(
          name = "sentinel.ruleset.keys-file",
          value = "src/test/resources/revisions/keys.yaml")
    })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RulesetPushGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String RULES =
      Site.read(Path.of("rules/boiler.yaml")) + Site.read(Path.of("rules/door.yaml"));
  private static final String PUMP = "boiler.ch1.pump";

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @io.quarkus.test.common.http.TestHTTPResource("/q/metrics")
  java.net.URI metrics;

  private RevisionCli cli;
  private BrokerClient device;
  private BrokerClient statusWatcher;
  private long start;

  @BeforeAll
  void setUp() throws IOException {
    cli =
        new RevisionCli(
            broker, Files.createDirectories(Path.of("target/scratch/push-it-" + broker.site())));
    device = broker.client("device");
    statusWatcher = broker.client("status").subscribe(broker.topic("ruleset/status"));
    start = gateway.activeRevision();
  }

  @AfterAll
  void tearDown() {
    device.close();
    statusWatcher.close();
  }

  @Test
  @Order(1)
  void signedRevision_becomesActive_andChangesBehaviourAtAPassBoundary() throws IOException {
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42}");
    device.publish(broker.topic("points/boiler.ch1.demand"), "false");
    assertThat(awaitCommands(PUMP, 1).get(0).json().getValue("value")).isEqualTo(true);
    String hashBefore = apiRuleHash("pump-run-on");

    CliRunner push =
        push(doc(start + 1, RULES.replace("flow.value > 35", "flow.value > 45")), "ops");
    assertThat(push.exit()).as(push.output()).isZero();
    assertThat(push.output()).contains("revision " + (start + 1) + " active (signed by ops)");
    assertThat(gateway.activeRevision()).isEqualTo(start + 1);
    // The HTTP API shows the rule as the engine now runs it, not as the site's files have it.
    assertThat(apiRuleHash("pump-run-on")).isNotEqualTo(hashBefore);

    // The changed rule decides again from the activation: 42 degC is no longer hot enough.
    JsonObject released = awaitCommands(PUMP, 2).get(1).json();
    assertThat(released.getString("kind")).isEqualTo("release");

    JsonObject status = lastStatus();
    assertThat(status.getString("state")).isEqualTo("active");
    assertThat(status.getLong("revision")).isEqualTo(start + 1);
    assertThat(status.getLong("active_revision")).isEqualTo(start + 1);
    assertThat(status.getString("signer")).isEqualTo("ops");
    assertThat(status.getJsonObject("changes").getJsonArray("changed").getList())
        .containsExactly("pump-run-on");
    assertThat(events("ruleset-activated"))
        .anySatisfy(e -> assertThat(e.getString("message")).contains("signed by ops"));
    awaitAuditRevisions(1);
  }

  @Test
  @Order(2)
  void unknownKey_isRejected_andTheActiveSetRunsOn() throws IOException {
    CliRunner push = push(doc(start + 2, RULES) + "comment: not a revision key\n", "ops");
    assertThat(push.exit()).as(push.output()).isEqualTo(1);
    assertThat(push.output())
        .contains("[YAML-015]", "unknown key 'comment'")
        .contains(
            "revision " + (start + 2) + " rejected; revision " + (start + 1) + " stays active");
    assertRejected(start + 2, "YAML-015");
  }

  @Test
  @Order(3)
  void validationError_isRejectedWithItsRuleAndLine_noPartOfItActivates() throws IOException {
    String rules =
        RULES
            .replace("flow.value > 35", "flow.value > 43")
            .replace(
                "demand: boiler.ch1.demand\n  trigger:\n    on: transition\n    of: demand",
                "demand: boiler.ch1.no-such-point\n  trigger:\n    on: transition\n    of: demand");
    assertThat(rules).contains("boiler.ch1.no-such-point");
    CliRunner push = push(doc(start + 2, rules), "ops");
    assertThat(push.exit()).as(push.output()).isEqualTo(1);
    assertThat(push.output())
        .containsPattern("ruleset:\\d+: error \\[\\w+-\\d+] rule burner-on-demand:");
    JsonObject problem = assertRejected(start + 2, null).getJsonArray("problems").getJsonObject(0);
    assertThat(problem.getString("rule")).isEqualTo("burner-on-demand");
    assertThat(problem.getInteger("line")).isGreaterThan(3);
  }

  @Test
  @Order(4)
  void badSignature_isRejected_withAControlEvent() throws IOException {
    String doc = doc(start + 2, RULES.replace("flow.value > 35", "flow.value > 43"));
    CliRunner forged = push(doc, "stranger");
    assertThat(forged.exit()).as(forged.output()).isEqualTo(1);
    assertThat(forged.output()).contains("[REV-021]");
    assertRejected(start + 2, "REV-021");
    await()
        .atMost(WAIT)
        .until(
            () ->
                events("ruleset-rejected").stream()
                    .anyMatch(e -> e.getString("message").startsWith("forged")));

    // Signed, then changed: the signature no longer covers what arrives.
    String tampered = RevisionDocument.withSignature(doc, key("ops")).replace("> 43", "> 40");
    CliRunner changed = push(tampered, null);
    assertThat(changed.exit()).as(changed.output()).isEqualTo(1);
    assertThat(changed.output()).contains("[REV-021]");

    CliRunner unsigned = push(doc, null);
    assertThat(unsigned.exit()).as(unsigned.output()).isEqualTo(1);
    assertThat(unsigned.output()).contains("[REV-020]", "unsigned");
  }

  @Test
  @Order(5)
  void interlockChange_withoutAReviewSignature_isRejected() throws IOException {
    String doc =
        doc(
            start + 2,
            RULES
                .replace("flow.value > 35", "flow.value > 45")
                .replace(">= 95 degC", ">= 90 degC"));
    CliRunner push = push(doc, "ops");
    assertThat(push.exit()).as(push.output()).isEqualTo(1);
    assertThat(push.output())
        .contains("[REV-022] rule boiler-overheat-cutoff:", "changes interlock rule");
    assertRejected(start + 2, "REV-022");

    // Removing the fail-safe interlock, signed by a trusted key but reviewed by none.
    CliRunner removal = push(doc(start + 2, withoutInterlock()), "ops");
    assertThat(removal.exit()).as(removal.output()).isEqualTo(1);
    assertThat(removal.output())
        .contains("[REV-022] rule boiler-overheat-cutoff:", "removes interlock rule")
        .contains("needs a review signature");
    assertRejected(start + 2, "REV-022");

    // The same bytes again (as after every reconnect): refused again, recorded once (order 11).
    CliRunner repeated = push(doc(start + 2, withoutInterlock()), "ops");
    assertThat(repeated.exit()).as(repeated.output()).isEqualTo(1);
    assertThat(repeated.output()).contains("[REV-022]", "removes interlock rule");
  }

  @Test
  @Order(6)
  void afterEveryRejection_theActiveSetStillDecides() throws Exception {
    // Revision start+1 (pump above 45 degC) still runs: none of the rejected ones (43, 40) took.
    int before = broker.recorder().on(broker.topic("commands/" + PUMP)).size();
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 44}");
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 46}");
    JsonObject pump = awaitCommands(PUMP, before + 1).get(before).json();
    assertThat(pump.getValue("value")).isEqualTo(true);
    assertThat(pump.getString("rule")).isEqualTo("pump-run-on");
    assertThat(gateway.activeRevision()).isEqualTo(start + 1);
    // The interlock the rejected revision would have removed still holds the burner off.
    assertThat(apiRuleHash("boiler-overheat-cutoff")).isNotEmpty();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        broker
                            .recorder()
                            .last(broker.topic("claims/boiler.ch1.burner"))
                            .orElseThrow()
                            .json()
                            .getJsonObject("winner")
                            .getString("rule"))
                    .isEqualTo("boiler-overheat-cutoff"));
    assertAuditRevisions(1);
  }

  @Test
  @Order(7)
  void olderOrEqualNumbers_areRefused_andTheActiveOneAgainIsANoOp() throws IOException {
    CliRunner equal = push(doc(start + 1, RULES), "ops");
    assertThat(equal.exit()).as(equal.output()).isEqualTo(1);
    assertThat(equal.output()).contains("[REV-030]", "already active with other content");
    CliRunner older = push(doc(start, RULES), "ops");
    assertThat(older.output()).contains("older than the active revision " + (start + 1));

    CliRunner again =
        push(doc(start + 1, RULES.replace("flow.value > 35", "flow.value > 45")), "ops");
    assertThat(again.exit()).as(again.output()).isZero();
    assertThat(again.output()).contains("revision " + (start + 1) + " active");
    assertAuditRevisions(1);
  }

  @Test
  @Order(8)
  void interlockChange_signedAndReviewed_becomesActive_asJson() throws IOException {
    String yaml =
        doc(
            start + 2,
            RULES
                .replace("flow.value > 35", "flow.value > 45")
                .replace(">= 95 degC", ">= 90 degC"));
    Object tree = new Load(LoadSettings.builder().build()).loadFromString(yaml);
    String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(tree);
    CliRunner push = push(json, "ops", "reviewer");
    assertThat(push.exit()).as(push.output()).isZero();
    assertThat(push.output())
        .contains(
            "revision " + (start + 2) + " active (signed by ops, reviewed by safety-officer)");
    awaitAuditRevisions(2);
  }

  @Test
  @Order(9)
  void restartWhileANewerRevisionIsRetained_startsFromTheStoredOne_thenTakesTheNewer()
      throws Exception {
    String newer =
        RevisionDocument.withSignature(
            doc(
                start + 3,
                RULES
                    .replace("flow.value > 35", "flow.value > 47")
                    .replace(">= 95 degC", ">= 90 degC")),
            key("ops"));
    gateway.restart(
        () -> {
          try {
            device
                .publishAsync(broker.topic("ruleset"), newer.getBytes(StandardCharsets.UTF_8), true)
                .get(20, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
    await().atMost(WAIT).until(() -> gateway.activeRevision() == start + 3);
    List<List<String>> revisions = awaitAuditRevisions(3);
    // The last activation took over from the stored revision, not from the site's files.
    assertThat(revisions.get(2).get(0)).isEqualTo(Long.toString(start + 3));
    assertThat(new JsonObject(revisions.get(2).get(1)).getLong("previous_revision"))
        .isEqualTo(start + 2);
    assertThat(lastStatus().getLong("revision")).isEqualTo(start + 3);
  }

  @Test
  @Order(10)
  void theStatusIsRetained_andEveryOutcomeIsCounted() throws Exception {
    BrokerClient late = broker.client("late").subscribe(broker.topic("ruleset/status"));
    await().atMost(WAIT).until(() -> late.last(broker.topic("ruleset/status")).isPresent());
    assertThat(late.last(broker.topic("ruleset/status")).orElseThrow().json().getLong("revision"))
        .isEqualTo(start + 3);
    late.close();

    String text =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(metrics).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(text)
        .contains("sentinel_ruleset_revisions_total{outcome=\"active\",reason=\"\"} 3.0")
        // Once on a re-push (order 7), once after the restart: the persistent session hands over
        // the document queued while the gateway was down, and the subscription its retained copy.
        .contains("sentinel_ruleset_revisions_total{outcome=\"unchanged\",reason=\"\"} 2.0")
        .contains("sentinel_ruleset_revisions_total{outcome=\"repeated\",reason=\"\"} 1.0")
        .contains("sentinel_ruleset_revisions_total{outcome=\"rejected\",reason=\"forged\"} 2.0")
        .contains("sentinel_ruleset_revisions_total{outcome=\"rejected\",reason=\"unsigned\"} 1.0")
        .contains(
            "sentinel_ruleset_revisions_total{outcome=\"rejected\",reason=\"unreviewed\"} 2.0")
        .contains("sentinel_ruleset_revisions_total{outcome=\"rejected\",reason=\"stale\"} 2.0")
        .contains("sentinel_ruleset_revisions_total{outcome=\"rejected\",reason=\"invalid\"} 2.0");
  }

  @Test
  @Order(11)
  void everyRejectedDocumentIsRecorded_apartFromTheRevisionsAStartRunsFrom() throws Exception {
    var db = broker.database();
    // The nine rejections of the steps above, one row each, with the reason the status gave.
    assertThat(
            db.rows(
                "SELECT reason, count(*) FROM ruleset_rejections GROUP BY reason ORDER BY reason"))
        .containsExactly(
            List.of("forged", "2"),
            List.of("invalid", "2"),
            List.of("stale", "2"),
            List.of("unreviewed", "2"),
            List.of("unsigned", "1"));
    List<List<String>> forged =
        db.rows(
            "SELECT revision, content_hash, outcome, problems::text, document, active_revision,"
                + " source FROM ruleset_rejections WHERE reason = 'forged' ORDER BY id");
    assertThat(forged)
        .allSatisfy(
            r -> {
              assertThat(r.get(0)).isEqualTo(Long.toString(start + 2));
              assertThat(r.get(1)).matches("[0-9a-f]{64}");
              assertThat(r.get(2)).isEqualTo("rejected");
              assertThat(r.get(3)).contains("\"code\": \"REV-021\"");
              assertThat(r.get(4)).contains("revision: " + (start + 2), "signature:");
              assertThat(r.get(5)).isEqualTo(Long.toString(start + 1));
              assertThat(r.get(6)).isEqualTo("push");
            });
    assertThat(
            db.count(
                "SELECT count(*) FROM ruleset_rejections WHERE problems @>"
                    + " '[{\"code\": \"YAML-015\", \"severity\": \"error\"}]'"))
        .isEqualTo(1);
    // The revisions table holds what ran: a start still takes the last active one from it.
    assertThat(db.count("SELECT count(*) FROM ruleset_revisions WHERE state = 'rejected'"))
        .isZero();
    assertThat(db.rows("SELECT revision FROM ruleset_revisions WHERE state = 'active'"))
        .containsExactly(List.of(Long.toString(start + 3)));
    assertThat(db.count("SELECT count(*) FROM ruleset_history WHERE outcome = 'rejected'"))
        .isEqualTo(9);

    // A document that is not even text: recorded with no number, no hash and no document.
    device
        .publishAsync(broker.topic("ruleset"), new byte[] {(byte) 0xff, (byte) 0xfe, 0x41}, false)
        .get(20, TimeUnit.SECONDS);
    await()
        .atMost(WAIT)
        .until(
            () ->
                db
                    .rows(
                        "SELECT reason, problems::text FROM ruleset_rejections WHERE revision IS NULL"
                            + " AND content_hash IS NULL AND document IS NULL")
                    .stream()
                    .anyMatch(r -> r.get(0).equals("invalid") && r.get(1).contains("REV-009")));
    assertThat(gateway.activeRevision()).isEqualTo(start + 3);
  }

  @Test
  @Order(12)
  void interlockRemoval_signedAndReviewed_becomesActive() throws IOException {
    String rules = withoutInterlock().replace("flow.value > 35", "flow.value > 47");
    CliRunner push = push(doc(start + 4, rules), "ops", "reviewer");
    assertThat(push.exit()).as(push.output()).isZero();
    assertThat(push.output()).contains("reviewed by safety-officer");
    assertThat(gateway.activeRevision()).isEqualTo(start + 4);
    assertThat(lastStatus().getJsonObject("changes").getJsonArray("removed").getList())
        .containsExactly("boiler-overheat-cutoff");
    io.restassured.RestAssured.get("/api/v1/rules/boiler-overheat-cutoff").then().statusCode(404);
    List<List<String>> revisions = awaitAuditRevisions(4);
    assertThat(new JsonObject(revisions.get(3).get(1)).getString("reviewer"))
        .isEqualTo("safety-officer");
  }

  /** The example site's rules without its fail-safe interlock. */
  static String withoutInterlock() {
    String boiler = Site.read(Path.of("rules/boiler.yaml"));
    int from = boiler.indexOf("- id: boiler-overheat-cutoff");
    int to = boiler.indexOf("\n- id:", from + 1);
    String cut = boiler.substring(0, from) + (to < 0 ? "" : boiler.substring(to + 1));
    assertThat(cut).doesNotContain("boiler-overheat-cutoff");
    return cut + Site.read(Path.of("rules/door.yaml"));
  }

  private JsonObject assertRejected(long revision, String code) {
    JsonObject status = lastStatus();
    assertThat(status.getString("state")).isEqualTo("rejected");
    assertThat(status.getLong("revision")).isEqualTo(revision);
    assertThat(status.getLong("active_revision")).isEqualTo(start + 1);
    if (code != null) {
      assertThat(
              status.getJsonArray("problems").stream().map(p -> ((JsonObject) p).getString("code")))
          .contains(code);
    }
    assertThat(gateway.activeRevision()).isEqualTo(start + 1);
    return status;
  }

  private String doc(long revision, String rules) {
    return "revision: " + revision + "\nsite: " + broker.site() + "\nrules:\n" + rules;
  }

  /** {@code sentinel push} as an operator runs it; {@code keyName} null pushes unsigned. */
  private CliRunner push(String document, String keyName) throws IOException {
    return cli.push(document, keyName, null);
  }

  private CliRunner push(String document, String keyName, String reviewKeyName) throws IOException {
    return cli.push(document, keyName, reviewKeyName);
  }

  private static java.security.PrivateKey key(String name) {
    return RevisionCli.key(name);
  }

  private JsonObject lastStatus() {
    await()
        .atMost(WAIT)
        .until(() -> statusWatcher.last(broker.topic("ruleset/status")).isPresent());
    return statusWatcher.last(broker.topic("ruleset/status")).orElseThrow().json();
  }

  private List<BrokerClient.Received> awaitCommands(String point, int atLeast) {
    String topic = broker.topic("commands/" + point);
    await().atMost(WAIT).until(() -> broker.recorder().on(topic).size() >= atLeast);
    return broker.recorder().on(topic);
  }

  private List<JsonObject> events(String kind) {
    return broker.recorder().on(broker.topic("events/" + kind)).stream()
        .map(BrokerClient.Received::json)
        .toList();
  }

  private static final String AUDIT_REVISIONS =
      "SELECT revision::text, detail::text FROM audit_log WHERE kind = 'revision' ORDER BY seq";

  private List<List<String>> awaitAuditRevisions(int count) {
    await().atMost(WAIT).until(() -> broker.database().rows(AUDIT_REVISIONS).size() >= count);
    return assertAuditRevisions(count);
  }

  private List<List<String>> assertAuditRevisions(int count) {
    List<List<String>> rows = broker.database().rows(AUDIT_REVISIONS);
    assertThat(rows).hasSize(count);
    return rows;
  }

  private static String apiRuleHash(String rule) {
    return io.restassured.RestAssured.get("/api/v1/rules/" + rule)
        .then()
        .statusCode(200)
        .extract()
        .path("hash");
  }
}
