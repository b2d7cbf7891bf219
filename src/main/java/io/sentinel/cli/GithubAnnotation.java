package io.sentinel.cli;

import io.sentinel.site.yaml.Problem;
import java.nio.file.Path;

/**
 * A problem as a GitHub Actions workflow command, which the run's log shows as an annotation on the
 * file and line: {@code ::error file=rules/boiler.yaml,line=12,title=RULE-020::rule pump-run-on:
 * ...}. The file is the site folder's path joined to the problem's, so that it names the file in
 * the repository when the site is a folder of it.
 */
final class GithubAnnotation {
  private GithubAnnotation() {}

  static String of(Problem p, Path siteDir) {
    StringBuilder b = new StringBuilder("::").append(p.isError() ? "error" : "warning");
    b.append(" file=").append(property(file(p, siteDir)));
    if (p.line() > 0) {
      b.append(",line=").append(p.line());
    }
    b.append(",title=").append(property(p.code())).append("::");
    String message = p.rule().isEmpty() ? p.message() : "rule " + p.rule() + ": " + p.message();
    return b.append(data(message)).toString();
  }

  private static String file(Problem p, Path siteDir) {
    Path file = Path.of(p.file());
    Path joined = file.isAbsolute() ? file : siteDir.resolve(file);
    Path here = Path.of("").toAbsolutePath();
    Path absolute = joined.toAbsolutePath().normalize();
    return absolute.startsWith(here) ? here.relativize(absolute).toString() : absolute.toString();
  }

  /** GitHub's escaping of a command's message: %, CR and LF. */
  private static String data(String s) {
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
  }

  /** ... and of a property's value: also ':' and ','. */
  private static String property(String s) {
    return data(s).replace(":", "%3A").replace(",", "%2C");
  }
}
