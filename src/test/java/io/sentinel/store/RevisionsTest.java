package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.site.Site;
import io.sentinel.testing.SiteCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RevisionsTest {
  static final Instant T = Instant.parse("2026-11-02T05:00:00Z");

  static Revisions.Recorded record(Revisions r, Path site) throws Exception {
    Site.Loaded loaded = Site.load(site);
    return r.record("example", Revisions.filesOf(site), loaded.problems(), "files", T);
  }

  @Test
  void
      sameContentKeepsItsNumber_aChangeIsTheNextRevision_errorsAreRejected_andTheLastActiveComesBack(
          @TempDir Path dir) throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      var pool = Store.pool(TestDatabase.VERTX, db.url());
      Revisions revisions = new Revisions(pool, Duration.ofSeconds(10));
      Path site = SiteCopy.of(dir.resolve("site"));
      assertThat(revisions.lastActive()).isEmpty();

      assertThat(record(revisions, site)).isEqualTo(new Revisions.Recorded(1, "active"));
      assertThat(record(revisions, site)).isEqualTo(new Revisions.Recorded(1, "active"));

      SiteCopy.edit(site, "door.yaml", y -> y.replace("duration: 3s", "duration: 4s"));
      assertThat(record(revisions, site)).isEqualTo(new Revisions.Recorded(2, "active"));

      SiteCopy.edit(site, "door.yaml", y -> y.replace("band: operator", "band: upstairs"));
      assertThat(record(revisions, site)).isEqualTo(new Revisions.Recorded(3, "rejected"));
      assertThat(
              db.count(
                  "SELECT count(*) FROM ruleset_revisions WHERE revision = 3"
                      + " AND problems @> '[{\"severity\": \"error\", \"file\": \"rules/door.yaml\"}]'"))
          .isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM ruleset_revisions WHERE state = 'superseded'"))
          .isEqualTo(1);

      // A gateway whose site now has an error can run the last active revision from the database.
      Revisions.Stored active = revisions.lastActive().orElseThrow();
      assertThat(active.revision()).isEqualTo(2);
      Path back = active.materialize(Files.createDirectories(dir.resolve("from-db")));
      Site.Loaded loaded = Site.load(back);
      assertThat(loaded.ok()).as(loaded.problems().toString()).isTrue();
      assertThat(Files.readString(back.resolve("rules/door.yaml"))).contains("duration: 4s");
      pool.close();
    }
  }

  @Test
  void rejectedPushesAreRecordedApart_theActiveRevisionAndTheNumberingAreUntouched(
      @TempDir Path dir) throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      var pool = Store.pool(TestDatabase.VERTX, db.url());
      Revisions revisions = new Revisions(pool, Duration.ofSeconds(10));
      Path site = SiteCopy.of(dir.resolve("site"));
      assertThat(record(revisions, site)).isEqualTo(new Revisions.Recorded(1, "active"));

      io.sentinel.site.yaml.Problems forged = new io.sentinel.site.yaml.Problems();
      forged.error(
          io.sentinel.site.revision.RevisionCodes.REV_021,
          "sentinel/example/ruleset",
          3,
          "",
          "the signature does not verify");
      long first =
          revisions.recordRejected(
              java.util.OptionalLong.of(900),
              java.util.Optional.of("ab".repeat(32)),
              "example",
              "forged",
              forged.sorted(),
              java.util.Optional.of("revision: 900\n"),
              1,
              T);
      io.sentinel.site.yaml.Problems unreadable = new io.sentinel.site.yaml.Problems();
      unreadable.error(
          io.sentinel.site.revision.RevisionCodes.REV_009,
          "sentinel/example/ruleset",
          0,
          "",
          "not UTF-8");
      long second =
          revisions.recordRejected(
              java.util.OptionalLong.empty(),
              java.util.Optional.empty(),
              "example",
              "invalid",
              unreadable.sorted(),
              java.util.Optional.empty(),
              1,
              T.plusSeconds(1));
      assertThat(second).isGreaterThan(first);
      assertThat(
              db.rows(
                  "SELECT revision, content_hash, outcome, reason, document, received_at ="
                      + " '2026-11-02T05:00:00Z' FROM ruleset_rejections ORDER BY id"))
          .containsExactly(
              java.util.Arrays.asList(
                  "900", "ab".repeat(32), "rejected", "forged", "revision: 900\n", "t"),
              java.util.Arrays.asList(null, null, "rejected", "invalid", null, "f"));
      assertThat(
              db.count(
                  "SELECT count(*) FROM ruleset_rejections WHERE problems @>"
                      + " '[{\"code\": \"REV-021\", \"line\": 3}]'"))
          .isEqualTo(1);

      // The active revision, the files' numbering and a later push of the same number are as if
      // nothing had been rejected.
      assertThat(revisions.lastActive().orElseThrow().revision()).isEqualTo(1);
      SiteCopy.edit(site, "door.yaml", y -> y.replace("duration: 3s", "duration: 4s"));
      assertThat(record(revisions, site)).isEqualTo(new Revisions.Recorded(2, "active"));
      revisions.recordPushed(900, "example", "cd".repeat(32), "revision: 900", List.of(), T);
      assertThat(revisions.lastActive().orElseThrow().revision()).isEqualTo(900);
      assertThat(
              db.rows("SELECT outcome, count(*) FROM ruleset_history GROUP BY outcome ORDER BY 1"))
          .containsExactly(
              List.of("active", "1"), List.of("rejected", "2"), List.of("superseded", "2"));
      pool.close();
    }
  }
}
