package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.audit.AuditAnchor;
import io.sentinel.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Audit anchoring (issue 17) through the real gateway, broker and PostgreSQL: the chain's head is
 * signed with the gateway's own key, published retained and kept in {@code audit_anchors}; an
 * export with its last 10 records cut is intact as a chain, and {@code sentinel audit verify} names
 * the cut against the anchor, taken from a file, the broker or the database. Releases are in the
 * log like assertions.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "anchor"),
      // Anchored by time alone here (AuditAnchorCountGatewayTest: by the record count alone).
      @ResourceArg(name = "sentinel.audit.anchor-records", value = "1000000"),
      @ResourceArg(name = "sentinel.audit.anchor-interval", value = "1s"),
      @ResourceArg(
          name = "sentinel.audit.anchor-key",
          value = "target/scratch/anchor-test/audit-anchor.key")
    })
class AuditAnchorGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Test
  void anExportWithItsTailCut_isNamedAsCut_againstTheSignedAnchor() throws Exception {
    BrokerClient device = broker.client("device");
    var db = broker.database();
    auditRecords(broker, device, 16);
    assertThat(db.count("SELECT count(*) FROM audit_log WHERE kind = 'release'")).isPositive();
    // The anchor catches up with the head by time alone (a second behind it at most here), and,
    // with no record added, is signed again at the same head at least every interval.
    await()
        .atMost(WAIT)
        .until(
            () ->
                db.count(
                        "SELECT count(*) FROM audit_anchors WHERE seq = (SELECT max(seq) FROM"
                            + " audit_log)")
                    >= 2);
    assertThat(db.count("SELECT count(*) FROM audit_log")).isGreaterThanOrEqualTo(16);
    AuditAnchor anchor =
        AuditAnchor.parse(
            db.rows("SELECT anchor FROM audit_anchors ORDER BY seq DESC, id DESC LIMIT 1")
                .get(0)
                .get(0));
    assertThat(anchor.verifiesWith(anchor.publicKey())).isTrue();
    String pub = Files.readString(Path.of("target/scratch/anchor-test/audit-anchor.key.pub"));
    assertThat(pub).contains("BEGIN PUBLIC KEY");
    // Published retained: a late subscriber gets it.
    BrokerClient late = broker.client("auditor").subscribe(broker.topic("audit/anchor"));
    await().atMost(WAIT).until(() -> late.last(broker.topic("audit/anchor")).isPresent());
    late.close();

    Path dir = Files.createDirectories(Path.of("target/scratch/anchor-" + broker.site()));
    Path export = dir.resolve("audit.ndjson");
    assertThat(cli("audit", "export", "--db", db.configUrl(), "-o", export.toString()).exit())
        .isZero();
    List<String> lines = Files.readAllLines(export);
    Path anchorFile = Files.writeString(dir.resolve("anchor.json"), anchor.json());
    Run whole = cli("audit", "verify", export.toString(), "--anchor", anchorFile.toString());
    assertThat(whole.exit()).as(whole.out()).isZero();
    assertThat(whole.out()).contains("intact", "at seq " + anchor.seq() + " matches");

    // The last 10 records of what the anchor covers, cut: still an intact chain.
    int keep = (int) anchor.seq() - 10;
    Path cut = Files.write(dir.resolve("cut.ndjson"), lines.subList(0, keep));
    Run plain = cli("audit", "verify", cut.toString());
    assertThat(plain.exit()).isZero();
    assertThat(plain.out()).contains("intact", "a cut tail cannot be told");

    Run named = cli("audit", "verify", cut.toString(), "--anchor", anchorFile.toString());
    assertThat(named.exit()).as(named.out()).isEqualTo(1);
    assertThat(named.out())
        .contains(
            "CUT: the export ends at seq " + keep + "; the anchor of " + anchor.ts(),
            "says " + anchor.seq() + ": 10 records cut");
    Run keyed =
        cli(
            "audit",
            "verify",
            cut.toString(),
            "--anchor",
            anchorFile.toString(),
            "--key",
            "target/scratch/anchor-test/audit-anchor.key.pub");
    assertThat(keyed.out()).contains("10 records cut");

    for (Run r :
        List.of(
            cli("audit", "verify", cut.toString(), "--db", db.configUrl()),
            cli(
                "audit",
                "verify",
                cut.toString(),
                "--broker",
                broker.url(),
                "--site",
                broker.site()))) {
      assertThat(r.exit()).as(r.out()).isEqualTo(1);
      assertThat(r.out()).contains("CUT: the export ends at seq " + keep, "records cut");
    }

    // An anchor changed (a later seq claimed) no longer verifies.
    Path forged =
        Files.writeString(
            dir.resolve("forged.json"),
            anchor.json().replace("\"seq\":" + anchor.seq(), "\"seq\":" + (anchor.seq() - 10)));
    Run f = cli("audit", "verify", cut.toString(), "--anchor", forged.toString());
    assertThat(f.exit()).isEqualTo(1);
    assertThat(f.out()).contains("signature does not verify");
    device.close();
  }

  /**
   * Audit records of the example site, at least {@code atLeast}: the pump claimed above 35 degC and
   * released below, a firing and a release each time the flow crosses.
   */
  static void auditRecords(BrokerResource.Broker broker, BrokerClient device, int atLeast)
      throws InterruptedException {
    device.publish(broker.topic("points/boiler.ch1.demand"), "false");
    var db = broker.database();
    for (int i = 0; i < 40 && db.count("SELECT count(*) FROM audit_log") < atLeast; i++) {
      device.publish(
          "zigbee2mqtt/boiler-flow", "{\"temperature\": " + (i % 2 == 0 ? 42 : 30) + "}");
      Thread.sleep(300);
    }
    assertThat(db.count("SELECT count(*) FROM audit_log")).isGreaterThanOrEqualTo(atLeast);
  }

  private record Run(int exit, String out) {}

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    int exit = Main.execute(new PrintWriter(out, true), args);
    return new Run(exit, out.toString());
  }
}
