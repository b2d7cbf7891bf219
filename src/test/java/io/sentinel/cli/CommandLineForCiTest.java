package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Issue 23 item 4: every subcommand answers --help; {@code sentinel test --junit} writes a report a
 * JUnit XML parser reads, a test case per fixture case; {@code sentinel validate --format} speaks
 * JSON and GitHub annotations.
 */
class CommandLineForCiTest {
  private static final String VIOLATIONS = "src/test/resources/sites/violations";

  /** {@code ::error file=F,line=L,title=ID::message}, as GitHub documents its workflow command. */
  private static final Pattern ANNOTATION =
      Pattern.compile("^::(error|warning) file=[^,:]+(,line=\\d+)?,title=[A-Z]+-\\d+::\\S.*$");

  @ParameterizedTest
  @ValueSource(
      strings = {
        "run",
        "validate",
        "test",
        "replay",
        "audit",
        "audit export",
        "audit verify",
        "push",
        "keygen"
      })
  void everySubcommand_answersHelpAndVersion_withItsUsage_andExit0(String command) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.add("--help");
    CliRunner run = CliRunner.run(args.toArray(String[]::new));
    assertThat(run.exit()).as(run.output()).isZero();
    assertThat(run.output()).startsWith("Usage: sentinel " + command).contains("-h, --help");
    args.set(args.size() - 1, "--version");
    assertThat(CliRunner.run(args.toArray(String[]::new)).output().trim())
        .isEqualTo("sentinel 0.1.0");
  }

  @Test
  void testJunit_exampleSite_aTestCasePerFixtureCase_readByAnXmlParser(@TempDir Path dir)
      throws Exception {
    Path report = dir.resolve("reports/fixtures.xml");
    CliRunner run = CliRunner.run("test", ".", "--junit", report.toString());
    assertThat(run.exit()).as(run.output()).isZero();
    long passed =
        run.output().lines().filter(l -> l.startsWith("PASS ")).count(); // a line per case
    Document xml = parse(report);
    Element suites = xml.getDocumentElement();
    assertThat(suites.getTagName()).isEqualTo("testsuites");
    NodeList cases = xml.getElementsByTagName("testcase");
    assertThat(cases.getLength()).isEqualTo((int) passed).isGreaterThan(10);
    assertThat(suites.getAttribute("tests")).isEqualTo(Long.toString(passed));
    assertThat(suites.getAttribute("failures")).isEqualTo("0");
    assertThat(xml.getElementsByTagName("failure").getLength()).isZero();
    Element first = firstCase(xml, "condition true", "rules/tests/pump-run-on.yaml");
    assertThat(first.getAttribute("line")).isEqualTo("3");
    assertThat(((Element) first.getParentNode()).getAttribute("name"))
        .isEqualTo("rules/tests/pump-run-on.yaml");
  }

  @Test
  void testJunit_aFailingCase_isAFailureWithItsMessage(@TempDir Path site) throws Exception {
    TestCommandTest.copyExampleSite(site);
    TestCommandTest.addFailingCase(site);
    Path report = site.resolve("junit.xml");
    CliRunner run = CliRunner.run("test", site.toString(), "--junit", report.toString());
    assertThat(run.exit()).isEqualTo(1);
    Document xml = parse(report);
    assertThat(xml.getDocumentElement().getAttribute("failures")).isEqualTo("1");
    Element wrong = firstCase(xml, "expects the wrong thing", "tests/wrong.yaml");
    Element failure = (Element) wrong.getElementsByTagName("failure").item(0);
    assertThat(failure.getAttribute("message"))
        .isEqualTo(
            "at 0s (tests/wrong.yaml:1): expected claims {boiler.ch1.pump=true}, the rule holds"
                + " {}");
  }

  @Test
  void testJunit_aSiteWithErrors_isOneSuiteOfErrors(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("junit.xml");
    CliRunner run = CliRunner.run("test", VIOLATIONS, "--junit", report.toString());
    assertThat(run.exit()).isEqualTo(1);
    Document xml = parse(report);
    NodeList errors = xml.getElementsByTagName("error");
    assertThat(errors.getLength()).isEqualTo(20);
    assertThat(xml.getDocumentElement().getAttribute("errors")).isEqualTo("20");
    assertThat(((Element) errors.item(0)).getAttribute("type")).matches("[A-Z]+-\\d+");
  }

  @Test
  void validateGithub_aLinePerProblem_inTheDocumentedForm() {
    CliRunner run = CliRunner.run("validate", VIOLATIONS, "--format", "github");
    assertThat(run.exit()).isEqualTo(1);
    List<String> annotations = run.output().lines().filter(l -> l.startsWith("::")).toList();
    assertThat(annotations).hasSize(21).allMatch(l -> ANNOTATION.matcher(l).matches());
    assertThat(annotations)
        .contains(
            "::error file="
                + VIOLATIONS
                + "/rules/violations.yaml,line=5,title=RULE-011::rule unknown-input: input t:"
                + " point 'plant.nowhere' is not in the registry")
        .anyMatch(
            l ->
                l.startsWith(
                    "::warning file="
                        + VIOLATIONS
                        + "/rules/violations.yaml,line=125,title=RULE-080::"));
    assertThat(run.output()).contains("20 error(s), 1 warning(s)");
  }

  @Test
  void validateJson_oneObject_withEveryProblem() throws Exception {
    CliRunner run = CliRunner.run("validate", VIOLATIONS, "--format", "json");
    assertThat(run.exit()).isEqualTo(1);
    JsonNode json = new ObjectMapper().readTree(run.output());
    assertThat(json.get("valid").booleanValue()).isFalse();
    assertThat(json.get("errors").intValue()).isEqualTo(20);
    assertThat(json.get("warnings").intValue()).isEqualTo(1);
    assertThat(json.get("problems")).hasSize(21);
    assertThat(json.get("problems").get(0).get("code").textValue()).matches("[A-Z]+-\\d+");
    CliRunner valid = CliRunner.run("validate", ".", "--format", "json");
    assertThat(valid.exit()).isZero();
    assertThat(new ObjectMapper().readTree(valid.output()).get("rules").intValue()).isEqualTo(6);
  }

  private static Document parse(Path file) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
  }

  private static Element firstCase(Document xml, String name, String classname) {
    NodeList cases = xml.getElementsByTagName("testcase");
    for (int i = 0; i < cases.getLength(); i++) {
      Element c = (Element) cases.item(i);
      if (c.getAttribute("name").startsWith(name)
          && c.getAttribute("classname").equals(classname)) {
        return c;
      }
    }
    throw new AssertionError("no test case " + classname + " / " + name);
  }
}
