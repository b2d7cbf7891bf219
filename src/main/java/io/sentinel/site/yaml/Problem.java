package io.sentinel.site.yaml;

/**
 * One problem found while loading or validating a site: where it is, which rule it concerns, and a
 * stable code that documentation and tests can name.
 */
public record Problem(
    Severity severity, String code, String file, int line, String rule, String message) {

  public enum Severity {
    ERROR,
    WARNING;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public boolean isError() {
    return severity == Severity.ERROR;
  }

  /** {@code rules/boiler.yaml:12: error [RULE-020] rule pump-run-on: message}. */
  public String format() {
    StringBuilder b = new StringBuilder();
    b.append(file);
    if (line > 0) {
      b.append(':').append(line);
    }
    b.append(": ").append(severity.wireName()).append(" [").append(code).append("] ");
    if (!rule.isEmpty()) {
      b.append("rule ").append(rule).append(": ");
    }
    return b.append(message).toString();
  }
}
