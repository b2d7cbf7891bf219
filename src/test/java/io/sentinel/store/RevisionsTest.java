package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.rule.Site;
import io.sentinel.testing.SiteCopy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
}
