package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.cli.CliRunner;
import io.sentinel.passlog.PassRecord;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.testing.ExampleSiteDay;
import io.sentinel.testing.SiteCopy;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example site's day logged through the journal into PostgreSQL, as a gateway would log it;
 * then {@code sentinel replay --from --to} and {@code sentinel audit export|verify} on the table.
 */
class LoggedDayTest {
  static TestDatabase db;

  @BeforeAll
  static void logTheDay(@TempDir Path spool) throws Exception {
    db = TestDatabase.create();
    RuleSet rules = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    Pool pool = Store.pool(TestDatabase.VERTX, db.url());
    Journal journal =
        Journal.open(
            pool,
            JournalSettings.defaults(spool),
            (e, p) -> {},
            TestClock.startingAt(io.sentinel.testing.ExampleSiteDay.START));
    ExampleSiteDay.runAudited(
        rules, (t, fed, r, audit) -> journal.offer(new PassRecord(t, fed, r), audit));
    assertThat(journal.drain(Duration.ofSeconds(30))).isTrue();
    journal.close();
    pool.close();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  static CliRunner cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--db");
    all.add(
        "postgresql://postgres@"
            + db.url().host()
            + ":"
            + db.url().port()
            + "/"
            + db.url().database());
    return CliRunner.run(all.toArray(String[]::new));
  }

  @Test
  void replayFromTheDatabase_withTheExampleRules_noDifference() {
    CliRunner run = cli("replay", "--from", "2026-11-02T05:00:00Z", "--to", "2026-11-02T21:00:00Z");
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output())
        .containsPattern("(?m)^44 matched, 0 only in replay, 0 only in history$");
  }

  @Test
  void replayFromTheDatabase_ofAnAfternoon_withALowerCutOff_showsTheWarmSpell(@TempDir Path site)
      throws Exception {
    SiteCopy.of(site);
    SiteCopy.edit(
        site, "boiler.yaml", y -> y.replace("flow.value >= 95 degC", "flow.value >= 90 degC"));
    CliRunner run =
        cli(
            "replay",
            "--from",
            "2026-11-02T17:00:00Z",
            "--to",
            "2026-11-02T21:00:00Z",
            "--lead",
            "2m",
            "--rules",
            site.toString());
    assertThat(run.exit()).as(run.output()).isEqualTo(1);
    assertThat(run.output())
        .containsPattern(
            "only in replay   2026-11-02T18:[1-4]\\d:\\d\\d\\.\\d+Z  boiler.ch1.burner := false \\(boiler-overheat-cutoff, interlock\\)");
  }

  @Test
  void auditLog_exportedAndVerified_isIntact(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("audit.ndjson");
    CliRunner export = cli("audit", "export", "-o", file.toString());
    assertThat(export.exit()).as(export.output()).isZero();
    long records = db.count("SELECT count(*) FROM audit_log");
    assertThat(Files.readAllLines(file)).hasSize((int) records);
    CliRunner verify = CliRunner.run("audit", "verify", file.toString());
    assertThat(verify.output()).startsWith("intact: " + records + " records, head ");
    CliRunner table = cli("audit", "verify");
    assertThat(table.exit()).isZero();
    assertThat(table.output()).isEqualTo(verify.output());

    // The export's three tamperings, on the file.
    List<String> lines = Files.readAllLines(file);
    List<String> edited = new ArrayList<>(lines);
    edited.set(9, edited.get(9).replace("\"reason\":\"", "\"reason\":\"not "));
    assertThat(
            CliRunner.run(
                    "audit", "verify", Files.write(dir.resolve("e.ndjson"), edited).toString())
                .output())
        .startsWith("BROKEN at e.ndjson:10 (seq 10, ")
        .contains("edited");
    List<String> removed = new ArrayList<>(lines);
    removed.remove(9);
    assertThat(
            CliRunner.run(
                    "audit", "verify", Files.write(dir.resolve("r.ndjson"), removed).toString())
                .output())
        .startsWith("BROKEN at r.ndjson:10 (seq 11, ");
    List<String> reordered = new ArrayList<>(lines);
    Collections.swap(reordered, 9, 10);
    CliRunner swapped =
        CliRunner.run(
            "audit", "verify", Files.write(dir.resolve("o.ndjson"), reordered).toString());
    assertThat(swapped.exit()).isEqualTo(1);
    assertThat(swapped.output()).startsWith("BROKEN at o.ndjson:10 (seq 11, ");
  }

  @Test
  void auditTable_editedRemovedOrReordered_namesTheFirstBrokenLink() {
    try (TestDatabase copy = TestDatabase.create()) {
      // Each tampering on a copy of the table, in the order: edit, remove, reorder.
      // The source's server by host and port: the embedded fallback is not on the default port.
      String source =
          "host="
              + db.url().host()
              + " port="
              + db.url().port()
              + " dbname="
              + db.url().database()
              + " user="
              + db.url().user();
      copy.execute("CREATE EXTENSION IF NOT EXISTS dblink");
      copy.execute(
          "INSERT INTO audit_log SELECT * FROM dblink('"
              + source
              + "',"
              + " 'SELECT * FROM audit_log') AS t(seq bigint, event_id text, kind text, rule_id text,"
              + " revision bigint, matched_inputs jsonb, resolved_outputs jsonb, band text, priority int,"
              + " deciding_key text, contenders jsonb, device_id text, zone text, cycle bigint, ts text,"
              + " at timestamptz, reason text, detail jsonb, previous_hash text, hash text)");
      String url =
          "postgresql://postgres@"
              + copy.url().host()
              + ":"
              + copy.url().port()
              + "/"
              + copy.url().database();
      assertThat(CliRunner.run("audit", "verify", "--db", url).exit()).isZero();

      copy.execute("UPDATE audit_log SET resolved_outputs = '[]' WHERE seq = 12");
      CliRunner edited = CliRunner.run("audit", "verify", "--db", url);
      assertThat(edited.exit()).isEqualTo(1);
      assertThat(edited.output())
          .startsWith("BROKEN at audit_log row 12 (seq 12, ")
          .contains("edited");

      copy.execute("DELETE FROM audit_log WHERE seq >= 12");
      copy.execute(
          "INSERT INTO audit_log SELECT * FROM dblink('"
              + source
              + "',"
              + " 'SELECT * FROM audit_log WHERE seq >= 12') AS t(seq bigint, event_id text, kind text, rule_id text,"
              + " revision bigint, matched_inputs jsonb, resolved_outputs jsonb, band text, priority int,"
              + " deciding_key text, contenders jsonb, device_id text, zone text, cycle bigint, ts text,"
              + " at timestamptz, reason text, detail jsonb, previous_hash text, hash text)");
      assertThat(CliRunner.run("audit", "verify", "--db", url).exit()).isZero();
      copy.execute("DELETE FROM audit_log WHERE seq = 12");
      assertThat(CliRunner.run("audit", "verify", "--db", url).output())
          .startsWith("BROKEN at audit_log row 12 (seq 13, ")
          .contains("removed, moved or rewritten");

      copy.execute("UPDATE audit_log SET seq = 12 WHERE seq = 14");
      copy.execute("UPDATE audit_log SET seq = 14 WHERE seq = 13");
      copy.execute("UPDATE audit_log SET seq = 13 WHERE seq = 12");
      // Rows 13 and 14 swapped places (row 12 is still missing): the first broken link is row 12.
      assertThat(CliRunner.run("audit", "verify", "--db", url).output())
          .startsWith("BROKEN at audit_log row 12 (seq 13, ");
    }
  }
}
