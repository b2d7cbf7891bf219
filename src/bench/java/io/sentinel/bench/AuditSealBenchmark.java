package io.sentinel.bench;

import io.sentinel.audit.AuditChain;
import io.sentinel.audit.AuditEntry;
import io.sentinel.audit.AuditRecord;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.testing.ExampleSiteDay;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the journal's writer spends on each audited record (docs/load.md, session 18): {@link
 * AuditChain#append}, the canonical text of the record and its SHA-256, over the audit entries of
 * the example site's recorded day (firings, actions, conflicts) in turn.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AuditSealBenchmark {
  private final List<AuditEntry> day = new ArrayList<>();
  private AuditChain chain;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    RuleSet rules = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    ExampleSiteDay.runAudited(rules, (t, fed, r, audit) -> day.addAll(audit));
    chain = AuditChain.empty();
  }

  @Benchmark
  public AuditRecord seal() {
    AuditEntry e = day.get(next);
    next = next + 1 == day.size() ? 0 : next + 1;
    return chain.append(e);
  }
}
