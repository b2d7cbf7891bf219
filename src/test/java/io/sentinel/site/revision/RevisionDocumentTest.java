package io.sentinel.site.revision;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.rule.Rule;
import io.sentinel.site.Site;
import io.sentinel.site.yaml.Problem;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CONTRACT section 4 and seed 001: a candidate revision is parsed and validated as a whole. */
class RevisionDocumentTest {
  static final Site SITE = Site.load(Path.of(".")).site().orElseThrow();

  static String doc(long revision, String rules) {
    return "revision: " + revision + "\nsite: example\nrules:\n" + rules;
  }

  static final String BOILER = Site.read(Path.of("rules/boiler.yaml"));

  static RevisionDocument.Checked check(String text) {
    return RevisionDocument.check("ruleset", text, SITE.basis(), "example");
  }

  static List<String> codes(RevisionDocument.Checked c) {
    return c.problems().stream().filter(Problem::isError).map(Problem::code).toList();
  }

  @Test
  void validDocument_givesTheWholeRuleSet() {
    RevisionDocument.Checked c = check(doc(7, BOILER));
    assertThat(codes(c)).isEmpty();
    assertThat(c.valid()).isTrue();
    assertThat(c.revision()).hasValue(7);
    assertThat(c.site()).contains("example");
    assertThat(c.ruleSet().orElseThrow().rules())
        .extracting(Rule::id)
        .contains("pump-run-on", "boiler-overheat-cutoff");
  }

  @Test
  void unknownKey_failsTheRevisionWithItsLine() {
    RevisionDocument.Checked top = check(doc(7, BOILER) + "comment: nope\n");
    assertThat(top.valid()).isFalse();
    assertThat(top.problems())
        .anySatisfy(
            p -> {
              assertThat(p.code()).isEqualTo("YAML-015");
              assertThat(p.message()).contains("unknown key 'comment'");
              assertThat(p.line()).isGreaterThan(3);
            });
    RevisionDocument.Checked inRule =
        check(doc(7, BOILER.replace("  warmup: all_inputs_live", "  warmpu: all_inputs_live")));
    assertThat(inRule.valid()).isFalse();
    assertThat(inRule.problems())
        .anySatisfy(
            p -> {
              assertThat(p.message()).contains("did you mean 'warmup'");
              assertThat(p.rule()).isEqualTo("pump-run-on");
            });
  }

  @Test
  void oneBadRule_rejectsTheRevisionNotJustTheRule() {
    RevisionDocument.Checked c =
        check(doc(7, BOILER.replace("flow.value > 35", "flow.value > 35 kPa")));
    assertThat(c.valid()).isFalse();
    assertThat(c.ruleSet()).isEmpty();
    assertThat(c.problems()).anySatisfy(p -> assertThat(p.rule()).isEqualTo("pump-run-on"));
  }

  @Test
  void headerProblems_areNamed() {
    assertThat(codes(check("site: example\nrules: []\n"))).contains("REV-002");
    assertThat(codes(check("revision: two\nsite: example\nrules: []\n"))).contains("REV-003");
    assertThat(codes(check("revision: 0\nsite: example\nrules: []\n"))).contains("REV-003");
    assertThat(codes(check("revision: 2\nsite: other\nrules: []\n"))).contains("REV-005");
    assertThat(codes(check("revision: 2\nrules: []\n"))).contains("REV-004");
    assertThat(codes(check("revision: 2\nsite: example\n"))).contains("REV-006");
    assertThat(codes(check("revision: 2\nsite: example\nrules: []\nsignature: '!!'\n")))
        .contains("REV-007");
    assertThat(codes(check(""))).contains("REV-001");
    assertThat(codes(check("[1, 2]"))).contains("YAML-012");
    assertThat(codes(check("revision: 2\nsite: example\nrules: [\n"))).contains("YAML-001");
    assertThat(codes(check("revision: 2\nsite: example\nrules: {a: 1}\n"))).contains("RULE-001");
  }

  @Test
  void emptyRuleList_isAValidRevision() {
    assertThat(check("revision: 2\nsite: example\nrules: []\n").valid()).isTrue();
  }

  @Test
  void pointsThatDifferFromTheRegistry_areRefused() {
    String same = "points:\n" + indent(Site.read(Path.of("seeds/points.yaml")), "points:");
    assertThat(codes(check(doc(3, BOILER) + same))).isEmpty();
    String changed = same.replace("range: [0, 120]", "range: [0, 130]");
    assertThat(changed).isNotEqualTo(same);
    RevisionDocument.Checked c = check(doc(3, BOILER) + changed);
    assertThat(codes(c)).containsExactly("REV-010");
    assertThat(c.problems().get(0).message()).contains("boiler.ch1.flow-temp (changed)");
  }

  @Test
  void jsonAndYamlOfTheSameRevision_haveOneCanonicalBody() {
    String yaml =
        """
        revision: 4
        site: example
        # the signature is not part of what it signs
        signature: AAAA
        rules:
          - id: a
            when: x.value > 1.50
            enabled: true
            note: ~
            on: "true"
        """;
    String json =
        """
        {"site":"example","rules":[{"on":"true","note":null,"enabled":true,"when":"x.value > 1.50",
         "id":"a"}],"revision":4}
        """;
    RevisionDocument.Checked y = check(yaml);
    RevisionDocument.Checked j = check(json);
    assertThat(y.canonicalBody())
        .isEqualTo(
            "{\"revision\":4,\"rules\":[{\"enabled\":true,\"id\":\"a\",\"note\":null,"
                + "\"on\":\"true\",\"when\":\"x.value > 1.50\"}],\"site\":\"example\"}");
    assertThat(j.canonicalBody()).isEqualTo(y.canonicalBody());
    assertThat(y.signature()).contains("AAAA");
  }

  @Test
  void numbers_areWrittenAsRfc8785Does() {
    assertThat(CanonicalBody.number("100")).isEqualTo("100");
    assertThat(CanonicalBody.number("1.50")).isEqualTo("1.5");
    assertThat(CanonicalBody.number("-0.0")).isEqualTo("0");
    assertThat(CanonicalBody.number("1E-7")).isEqualTo("1e-7");
    assertThat(CanonicalBody.number("0.000001")).isEqualTo("0.000001");
    assertThat(CanonicalBody.number("1e21")).isEqualTo("1e+21");
    assertThat(CanonicalBody.number("123456789012345678901234"))
        .isEqualTo("1.2345678901234569e+23");
    assertThat(CanonicalBody.number("1e20")).isEqualTo("100000000000000000000");
    assertThat(CanonicalBody.number("5e-324")).isEqualTo("5e-324");
  }

  private static String indent(String points, String after) {
    String body = points.substring(points.indexOf(after) + after.length());
    return body.lines().map(l -> "  " + l).reduce("", (a, b) -> a + b + "\n");
  }
}
