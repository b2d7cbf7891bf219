package io.sentinel.cli;

import io.sentinel.site.yaml.Problem;
import io.sentinel.testing.FixtureRunner.CaseResult;
import io.sentinel.testing.FixtureSuite;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * {@code sentinel test --junit FILE}: the fixture run as JUnit XML, the report CI systems show
 * natively. A test suite per fixture file, a test case per fixture case (its failures in a {@code
 * <failure>}); a site whose fixtures could not run is one suite, {@code site}, with an {@code
 * <error>} per load error, so the CI run shows why nothing ran.
 */
final class JunitReport {
  private JunitReport() {}

  static void write(FixtureSuite.Report report, Path file) throws IOException {
    Document doc;
    try {
      doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the JDK's XML builder is always there", e);
    }
    Element suites = doc.createElement("testsuites");
    suites.setAttribute("name", "sentinel test");
    doc.appendChild(suites);
    if (report.hasErrors()) {
      List<Problem> errors = report.problems().stream().filter(Problem::isError).toList();
      Element suite = suite(doc, suites, "site", errors.size(), 0, errors.size());
      for (Problem p : errors) {
        Element c = testCase(doc, suite, "site", p.format(), p.file(), p.line());
        Element error = doc.createElement("error");
        error.setAttribute("message", p.message());
        error.setAttribute("type", p.code());
        error.setTextContent(p.format());
        c.appendChild(error);
      }
    } else {
      Map<String, List<CaseResult>> byFile = new LinkedHashMap<>();
      for (CaseResult r : report.results()) {
        byFile.computeIfAbsent(r.fixture().where().file(), f -> new java.util.ArrayList<>()).add(r);
      }
      byFile.forEach(
          (fixtureFile, results) -> {
            long failed = results.stream().filter(r -> !r.passed()).count();
            Element suite = suite(doc, suites, fixtureFile, results.size(), failed, 0);
            for (CaseResult r : results) {
              Element c =
                  testCase(
                      doc,
                      suite,
                      fixtureFile,
                      r.fixture().name(),
                      fixtureFile,
                      r.fixture().where().line());
              if (!r.passed()) {
                Element failure = doc.createElement("failure");
                failure.setAttribute("message", r.failures().get(0));
                failure.setAttribute("type", "fixture");
                failure.setTextContent(String.join("\n", r.failures()));
                c.appendChild(failure);
              }
            }
          });
    }
    suites.setAttribute("tests", Integer.toString(count(suites, "tests")));
    suites.setAttribute("failures", Integer.toString(count(suites, "failures")));
    suites.setAttribute("errors", Integer.toString(count(suites, "errors")));
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (OutputStream out = Files.newOutputStream(file)) {
      var transformer = TransformerFactory.newInstance().newTransformer();
      transformer.setOutputProperty(OutputKeys.INDENT, "yes");
      transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
      transformer.transform(new DOMSource(doc), new StreamResult(out));
    } catch (TransformerException e) {
      throw new IOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static Element suite(
      Document doc, Element suites, String name, long tests, long failures, long errors) {
    Element suite = doc.createElement("testsuite");
    suite.setAttribute("name", name);
    suite.setAttribute("tests", Long.toString(tests));
    suite.setAttribute("failures", Long.toString(failures));
    suite.setAttribute("errors", Long.toString(errors));
    suite.setAttribute("skipped", "0");
    suites.appendChild(suite);
    return suite;
  }

  private static Element testCase(
      Document doc, Element suite, String classname, String name, String file, int line) {
    Element c = doc.createElement("testcase");
    c.setAttribute("classname", classname);
    c.setAttribute("name", name);
    c.setAttribute("file", file);
    if (line > 0) {
      c.setAttribute("line", Integer.toString(line));
    }
    suite.appendChild(c);
    return c;
  }

  private static int count(Element suites, String attribute) {
    int n = 0;
    for (var node = suites.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element e) {
        n += Integer.parseInt(e.getAttribute(attribute));
      }
    }
    return n;
  }
}
