package io.sentinel.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.testing.ExampleSiteDay;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditChainTest {
  static List<AuditRecord> chain = new ArrayList<>();

  /** The audit trail of the example site's recorded day, chained. */
  @BeforeAll
  static void recordTheDay() {
    RuleSet rules = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    AuditChain head = AuditChain.empty();
    ExampleSiteDay.runAudited(
        rules, (t, fed, r, audit) -> audit.forEach(e -> chain.add(head.append(e))));
  }

  static List<String> lines() {
    return chain.stream().map(AuditRecord::line).toList();
  }

  static AuditVerifier.Verdict verify(Path file) throws Exception {
    List<String> text = Files.readAllLines(file);
    List<AuditVerifier.Item> items = new ArrayList<>();
    for (int i = 0; i < text.size(); i++) {
      items.add(new AuditVerifier.Item(file.getFileName() + ":" + (i + 1), text.get(i)));
    }
    return AuditVerifier.verify(items.iterator());
  }

  @Test
  void theDay_recordsFiringsActionsAndTheSeedFields() {
    assertThat(chain).extracting(r -> r.entry().kind()).contains("firing", "action");
    AuditRecord cut =
        chain.stream()
            .filter(r -> r.entry().ruleId().equals("boiler-overheat-cutoff"))
            .filter(r -> r.entry().reason().equals("condition true"))
            .filter(r -> r.entry().kind().equals("firing"))
            .findFirst()
            .orElseThrow();
    assertThat(cut.line())
        .contains(
            "\"event_id\":\"firing/boiler-overheat-cutoff/boiler.ch1.burner/r1/",
            "\"device_id\":\"gpio:27\"",
            "\"zone\":\"ch1\"",
            "\"band\":\"interlock\"",
            "\"deciding_key\":\"band\"",
            "\"matched_inputs\":{\"flow\":{\"point\":\"boiler.ch1.flow-temp\",\"quality\":\"live\"",
            "\"resolved_outputs\":[{\"point\":\"boiler.ch1.burner\",\"rule\":\"boiler-overheat-cutoff\",\"value\":false}]",
            "\"contenders\":[{\"band\":\"interlock\"");
    assertThat(chain).extracting(r -> r.entry().eventId()).doesNotHaveDuplicates();
  }

  @Test
  void untouchedExport_isIntact(@TempDir Path dir) throws Exception {
    Path f = Files.write(dir.resolve("audit.ndjson"), lines());
    AuditVerifier.Verdict v = verify(f);
    assertThat(v.intact()).as(v.describe()).isTrue();
    assertThat(v.checked()).isEqualTo(chain.size());
    assertThat(v.headHash()).isEqualTo(chain.get(chain.size() - 1).hash());
  }

  @Test
  void editedRecord_isNamedAsTheFirstBrokenLink(@TempDir Path dir) throws Exception {
    List<String> lines = new ArrayList<>(lines());
    lines.set(4, lines.get(4).replace("\"value\":false", "\"value\":true"));
    AuditVerifier.Verdict v = verify(Files.write(dir.resolve("audit.ndjson"), lines));
    assertThat(v.describe())
        .startsWith("BROKEN at audit.ndjson:5 (seq 5, ")
        .endsWith("the record was edited: its content does not hash to its hash");
  }

  @Test
  void removedRecord_isNamedAsTheFirstBrokenLink(@TempDir Path dir) throws Exception {
    List<String> lines = new ArrayList<>(lines());
    lines.remove(4);
    AuditVerifier.Verdict v = verify(Files.write(dir.resolve("audit.ndjson"), lines));
    assertThat(v.describe())
        .startsWith("BROKEN at audit.ndjson:5 (seq 6, ")
        .contains("does not match the hash of the record before it (seq 4)");
  }

  @Test
  void reorderedRecords_areNamedAsTheFirstBrokenLink(@TempDir Path dir) throws Exception {
    List<String> lines = new ArrayList<>(lines());
    Collections.swap(lines, 4, 5);
    AuditVerifier.Verdict v = verify(Files.write(dir.resolve("audit.ndjson"), lines));
    assertThat(v.describe())
        .startsWith("BROKEN at audit.ndjson:5 (seq 6, ")
        .contains("removed, moved or rewritten");
  }

  @Test
  void rewrittenRecordWithAFreshHash_breaksTheLinkAfterIt(@TempDir Path dir) throws Exception {
    AuditRecord fifth = chain.get(4);
    AuditEntry e = fifth.entry();
    AuditEntry forged =
        new AuditEntry(
            e.eventId(),
            e.kind(),
            "someone-else",
            e.revision(),
            e.matchedInputs(),
            e.resolvedOutputs(),
            e.band(),
            e.priority(),
            e.decidingKey(),
            e.contenders(),
            e.deviceId(),
            e.zone(),
            e.cycle(),
            e.ts(),
            e.reason(),
            e.detail());
    List<String> lines = new ArrayList<>(lines());
    lines.set(4, AuditRecord.seal(5, forged, fifth.previousHash()).line());
    AuditVerifier.Verdict v = verify(Files.write(dir.resolve("audit.ndjson"), lines));
    assertThat(v.describe()).startsWith("BROKEN at audit.ndjson:6 (seq 6, ");
  }
}
