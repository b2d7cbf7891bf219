package io.sentinel.store;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.audit.CanonicalJson;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Rule-set revisions in the database: the files a revision was made of, the problems found in it,
 * and whether it became active. A site's files are a revision as they are; a revision with the same
 * content as the active one is the active one (its number does not move).
 */
public final class Revisions {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Pool pool;
  private final RowWriter db;

  public Revisions(Pool pool, Duration timeout) {
    this.pool = pool;
    this.db = new RowWriter(pool, timeout);
  }

  /** The one file of a pushed revision: its document as it arrived on the ruleset topic. */
  public static final String PUSHED_DOCUMENT = "ruleset";

  /**
   * @param source {@code files} (the site folder's files at a start) or {@code push} (a revision
   *     document from the ruleset topic, kept under {@link #PUSHED_DOCUMENT})
   */
  public record Stored(
      long revision, String site, String contentHash, String source, Map<String, String> files) {
    /** Writes the revision's files into {@code dir} as a site folder (to load it). */
    public Path materialize(Path dir) throws IOException {
      for (Map.Entry<String, String> f : files.entrySet()) {
        Path target = dir.resolve(f.getKey()).normalize();
        if (!target.startsWith(dir)) {
          throw new IOException("revision file outside its site: " + f.getKey());
        }
        Files.createDirectories(target.getParent());
        Files.writeString(target, f.getValue());
      }
      return dir;
    }
  }

  /** A site folder's files as a revision holds them, in the standard layout. */
  public static Map<String, String> filesOf(Path siteDir) {
    Map<String, String> files = new TreeMap<>();
    Site.registryFile(siteDir).ifPresent(f -> files.put("points.yaml", Site.read(f)));
    Site.derivedFile(siteDir).ifPresent(f -> files.put("derived.yaml", Site.read(f)));
    for (Path f : Site.ruleFiles(siteDir)) {
      files.put("rules/" + f.getFileName(), Site.read(f));
    }
    return files;
  }

  public static String hashOf(Map<String, String> files) {
    return CanonicalJson.sha256(CanonicalJson.textOf(files));
  }

  /**
   * Records a site's files as offered. Valid and identical to the active revision: that revision.
   * Valid and different: a new active revision, the previous one superseded. Invalid: a rejected
   * revision, the active one untouched. Returns the revision's number and state.
   */
  public record Recorded(long revision, String state) {}

  public Recorded record(
      String site, Map<String, String> files, List<Problem> problems, String source, Instant at)
      throws RowWriter.WriteFailed {
    String hash = hashOf(files);
    boolean valid = problems.stream().noneMatch(Problem::isError);
    Optional<Stored> active = lastActive();
    if (valid && active.isPresent() && active.get().contentHash().equals(hash)) {
      return new Recorded(active.get().revision(), "active");
    }
    String state = valid ? "active" : "rejected";
    List<Map<String, Object>> listed = listed(problems);
    Row r =
        db.await(
                pool.withTransaction(
                    c ->
                        (valid
                                ? c.query(
                                        "UPDATE ruleset_revisions SET state = 'superseded'"
                                            + " WHERE state = 'active'")
                                    .execute()
                                    .mapEmpty()
                                : io.vertx.core.Future.<Void>succeededFuture())
                            .compose(
                                v ->
                                    c.preparedQuery(
                                            "INSERT INTO ruleset_revisions (revision, content_hash,"
                                                + " source, site, files, problems, state,"
                                                + " recorded_at, activated_at) SELECT"
                                                + " coalesce(max(revision), 0) + 1, $1, $2, $3,"
                                                + " $4::text::jsonb, $5::text::jsonb, $6, $7::text::timestamptz,"
                                                + " CASE WHEN $6 = 'active' THEN $7::text::timestamptz"
                                                + " END FROM ruleset_revisions RETURNING revision")
                                        .execute(
                                            Tuple.of(
                                                hash,
                                                source,
                                                site,
                                                Rows.write(files),
                                                Rows.write(listed),
                                                state,
                                                at.toString())))))
            .iterator()
            .next();
    return new Recorded(r.getLong("revision"), state);
  }

  private static List<Map<String, Object>> listed(List<Problem> problems) {
    List<Map<String, Object>> listed = new ArrayList<>();
    for (Problem p : problems) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("severity", p.severity().wireName());
      m.put("file", p.file());
      m.put("line", p.line());
      m.put("rule", p.rule());
      m.put("code", p.code());
      m.put("message", p.message());
      listed.add(m);
    }
    return listed;
  }

  /**
   * Records a pushed revision that became active, under its own number (always above every revision
   * recorded so far: the active one is the highest, and a push must exceed it), the previous one
   * superseded. {@code warnings} are the problems it was accepted with.
   */
  public void recordPushed(
      long revision,
      String site,
      String contentHash,
      String document,
      List<Problem> warnings,
      Instant at)
      throws RowWriter.WriteFailed {
    db.await(
        pool.withTransaction(
            c ->
                c.query("UPDATE ruleset_revisions SET state = 'superseded' WHERE state = 'active'")
                    .execute()
                    .compose(
                        v ->
                            c.preparedQuery(
                                    "INSERT INTO ruleset_revisions (revision, content_hash, source,"
                                        + " site, files, problems, state, recorded_at,"
                                        + " activated_at) VALUES ($1, $2, 'push', $3,"
                                        + " $4::text::jsonb, $5::text::jsonb, 'active',"
                                        + " $6::text::timestamptz, $6::text::timestamptz)")
                                .execute(
                                    Tuple.of(
                                        revision,
                                        contentHash,
                                        site,
                                        Rows.write(Map.of(PUSHED_DOCUMENT, document)),
                                        Rows.write(listed(warnings)),
                                        at.toString())))));
  }

  /**
   * Records a pushed document the gateway rejected, in {@code ruleset_rejections} (never in {@code
   * ruleset_revisions}, so the revision a start runs is untouched). Returns the row's id.
   *
   * @param revision the document's number, when it could be read
   * @param contentHash its canonical body's hash, when it could be read
   * @param document the document as received, when it was UTF-8 text
   */
  public long recordRejected(
      java.util.OptionalLong revision,
      Optional<String> contentHash,
      String site,
      String reason,
      List<Problem> problems,
      Optional<String> document,
      long activeRevision,
      Instant at)
      throws RowWriter.WriteFailed {
    return db.await(
            pool.preparedQuery(
                    "INSERT INTO ruleset_rejections (revision, content_hash, source, site, reason,"
                        + " problems, document, received_at, active_revision) VALUES ($1, $2,"
                        + " 'push', $3, $4, $5::text::jsonb, $6, $7::text::timestamptz, $8)"
                        + " RETURNING id")
                .execute(
                    Tuple.of(
                            revision.isPresent() ? revision.getAsLong() : null,
                            contentHash.orElse(null),
                            site,
                            reason,
                            Rows.write(listed(problems)))
                        .addValue(document.orElse(null))
                        .addValue(at.toString())
                        .addValue(activeRevision)))
        .iterator()
        .next()
        .getLong("id");
  }

  /** The content hash of the site files as last recorded, if they ever were. */
  public Optional<String> lastFilesHash() throws RowWriter.WriteFailed {
    for (Row r :
        db.await(
            pool.query(
                    "SELECT content_hash FROM ruleset_revisions WHERE source = 'files' AND state <>"
                        + " 'rejected' ORDER BY revision DESC LIMIT 1")
                .execute())) {
      return Optional.of(r.getString("content_hash"));
    }
    return Optional.empty();
  }

  /** The revision the gateway last ran, if any. */
  public Optional<Stored> lastActive() throws RowWriter.WriteFailed {
    return one(
        "SELECT revision, site, content_hash, source, files::text AS files FROM"
            + " ruleset_revisions WHERE state = 'active' ORDER BY revision DESC LIMIT 1",
        Tuple.tuple());
  }

  /** Revision {@code revision} as it was recorded (any state), if it was (replay's rules). */
  public Optional<Stored> stored(long revision) throws RowWriter.WriteFailed {
    return one(
        "SELECT revision, site, content_hash, source, files::text AS files FROM"
            + " ruleset_revisions WHERE revision = $1",
        Tuple.of(revision));
  }

  /**
   * The newest revision of the site's files recorded at or before {@code revision} that was not
   * rejected: the basis a pushed revision was checked against.
   */
  public Optional<Stored> filesAtOrBefore(long revision) throws RowWriter.WriteFailed {
    return one(
        "SELECT revision, site, content_hash, source, files::text AS files FROM"
            + " ruleset_revisions WHERE source = 'files' AND state <> 'rejected' AND revision <= $1"
            + " ORDER BY revision DESC LIMIT 1",
        Tuple.of(revision));
  }

  private Optional<Stored> one(String sql, Tuple args) throws RowWriter.WriteFailed {
    for (Row r : db.await(pool.preparedQuery(sql).execute(args))) {
      try {
        Map<String, String> files =
            JSON.readValue(r.getString("files"), new TypeReference<TreeMap<String, String>>() {});
        return Optional.of(
            new Stored(
                r.getLong("revision"),
                r.getString("site"),
                r.getString("content_hash"),
                r.getString("source"),
                files));
      } catch (IOException e) {
        throw new IllegalStateException("revision " + r.getLong("revision") + " holds no files", e);
      }
    }
    return Optional.empty();
  }
}
