package io.sentinel.site;

import io.sentinel.derived.DerivedSet;
import io.sentinel.rule.Rule;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.rules.RuleSetChecks;
import io.sentinel.site.yaml.DocumentShapes;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.YamlFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A site folder: {@code points.yaml}, {@code rules/*.yaml} and {@code tests/*.yaml}. The
 * repository's own example site keeps its registry in {@code seeds/} and its fixtures in {@code
 * rules/tests/}; both places are looked up, in that order after the standard ones.
 */
public record Site(String name, Path dir, RuleSet ruleSet, Basis basis) {

  /**
   * What the site's rules are checked against: the registry of {@code points.yaml}, the derived
   * points of {@code derived.yaml} and {@code site.yaml}'s settings. A pushed revision is validated
   * against the basis of the running site (docs/revisions.md).
   */
  public record Basis(
      io.sentinel.point.Registry points, DerivedSet derived, SiteSettings settings) {}

  /** Loads the rules of a site over its basis: the rule files, or a revision's rules. */
  @FunctionalInterface
  public interface RuleSource {
    List<Rule> load(
        io.sentinel.point.Registry registry,
        SiteSettings settings,
        Map<String, io.sentinel.derived.DerivedPoint> generated);
  }

  /** The result of loading: the site when there is no error, and every problem either way. */
  public record Loaded(Optional<Site> site, List<Problem> problems) {
    public boolean ok() {
      return site.isPresent();
    }
  }

  public static Optional<Path> registryFile(Path dir) {
    return firstExisting(dir.resolve("points.yaml"), dir.resolve("seeds/points.yaml"));
  }

  /**
   * {@code site.yaml} (or seeds/site.yaml): time zone, zones, allow_unsigned_revisions; defaults
   * when absent.
   */
  static SiteSettings settings(Path dir, Problems problems) {
    Optional<Path> file = firstExisting(dir.resolve("site.yaml"), dir.resolve("seeds/site.yaml"));
    if (file.isEmpty()) {
      return SiteSettings.DEFAULT;
    }
    YamlFile yaml = new YamlFile(relative(dir, file.get()), problems);
    Optional<YamlFile.Fields> f =
        yaml.parse(read(file.get()))
            .flatMap(root -> yaml.mapping(root, "site.yaml", "", DocumentShapes.SITE_FILE.keys()));
    if (f.isEmpty()) {
      return SiteSettings.DEFAULT;
    }
    java.time.ZoneId zone = java.time.ZoneOffset.UTC;
    Optional<org.snakeyaml.engine.v2.nodes.Node> tzNode = f.get().get("timezone");
    Optional<String> tz = tzNode.flatMap(n -> yaml.text(n, "timezone", ""));
    try {
      zone = tz.map(java.time.ZoneId::of).orElse(zone);
    } catch (java.time.DateTimeException e) {
      yaml.error(
          tzNode.orElseThrow(),
          SiteCodes.SITE_002,
          "",
          "timezone '" + tz.get() + "' is not a time zone (e.g. Europe/London)");
    }
    List<String> zones = new ArrayList<>();
    f.get()
        .get("zones")
        .flatMap(n -> yaml.sequence(n, "zones", ""))
        .ifPresent(l -> l.forEach(z -> yaml.text(z, "zones", "").ifPresent(zones::add)));
    Optional<String> name = f.get().get("name").flatMap(n -> yaml.text(n, "name", ""));
    boolean allowUnsigned =
        f.get()
            .get("allow_unsigned_revisions")
            .flatMap(n -> yaml.bool(n, "allow_unsigned_revisions", ""))
            .orElse(false);
    return new SiteSettings(name, zone, zones, allowUnsigned);
  }

  public static Optional<Path> derivedFile(Path dir) {
    return firstExisting(dir.resolve("derived.yaml"), dir.resolve("seeds/derived.yaml"));
  }

  public static Optional<Path> testsDir(Path dir) {
    return firstExisting(dir.resolve("tests"), dir.resolve("rules/tests"));
  }

  public static List<Path> ruleFiles(Path dir) {
    return yamlFiles(dir.resolve("rules"));
  }

  public static List<Path> yamlFiles(Path folder) {
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(folder)) {
      return s.filter(p -> Files.isRegularFile(p))
          .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads and validates the whole site; nothing is returned unless all of it is valid. */
  public static Loaded load(Path dir) {
    return load(dir, ruleFiles(dir));
  }

  /** Loads the site's registry with the given rule files (validating a single file). */
  public static Loaded load(Path dir, List<Path> files) {
    Problems problems = new Problems();
    Optional<Path> registryPath = registryFile(dir);
    if (registryPath.isEmpty()) {
      problems.error(
          SiteCodes.SITE_001,
          dir.toString(),
          0,
          "",
          "no points.yaml (nor seeds/points.yaml) in this site");
      return new Loaded(Optional.empty(), problems.sorted());
    }
    io.sentinel.point.Registry points =
        RegistryLoader.load(relative(dir, registryPath.get()), read(registryPath.get()), problems);
    DerivedSet derived =
        derivedFile(dir)
            .map(f -> DerivedLoader.load(relative(dir, f), read(f), points, problems))
            .orElse(DerivedSet.EMPTY);
    SiteSettings settings = settings(dir, problems);
    Basis basis = new Basis(points, derived, settings);
    RuleSet ruleSet =
        assemble(
            basis,
            (registry, s, generated) -> {
              List<Rule> rules = new ArrayList<>();
              for (Path f : files) {
                rules.addAll(
                    RuleLoader.load(relative(dir, f), read(f), registry, s, generated, problems));
              }
              return rules;
            },
            problems);
    String name =
        settings
            .name()
            .orElseGet(
                () ->
                    Optional.ofNullable(dir.toAbsolutePath().normalize().getFileName())
                        .map(Path::toString)
                        .orElse("site"));
    Optional<Site> site =
        problems.hasErrors() ? Optional.empty() : Optional.of(new Site(name, dir, ruleSet, basis));
    return new Loaded(site, problems.sorted());
  }

  /** What a rule file's text makes against a site: its rules and every problem, in order. */
  public record Checked(List<Rule> rules, List<Problem> problems) {
    public boolean ok() {
      return problems.stream().noneMatch(Problem::isError);
    }
  }

  /**
   * Checks the text of one rule file (native or DSL) against this site's registry, derived points
   * and settings as the gateway loaded them (the same {@link #assemble} a revision goes through),
   * as {@code sentinel validate FILE} checks a file: the file's rules with each other, not with the
   * site's other rule files.
   */
  public Checked checkRules(String file, String text) {
    Problems problems = new Problems();
    RuleSet checked =
        assemble(
            basis,
            (registry, settings, generated) ->
                RuleLoader.load(file, text, registry, settings, generated, problems),
            problems);
    return new Checked(checked.rules(), problems.sorted());
  }

  /**
   * The rule set of {@code rules} over a basis: derived points join the registry, DSL built-ins
   * become derived points, and the whole-set checks run. Valid only if {@code problems} has no
   * error afterwards.
   */
  public static RuleSet assemble(Basis basis, RuleSource rules, Problems problems) {
    // Rules read derived points like any other: one registry holds both.
    List<io.sentinel.point.PointSpec> all = new ArrayList<>(basis.points().points().values());
    basis.derived().ordered().forEach(d -> all.add(d.spec()));
    io.sentinel.point.Registry registry = io.sentinel.point.Registry.of(all);
    DerivedSet derived = basis.derived();
    Map<String, io.sentinel.derived.DerivedPoint> generated = new LinkedHashMap<>();
    List<Rule> loaded = rules.load(registry, basis.settings(), generated);
    // Built-ins of DSL rules (rolling_avg, time_of_day ...) are derived points like any other.
    if (!generated.isEmpty()) {
      List<io.sentinel.derived.DerivedPoint> allDerived = new ArrayList<>(derived.ordered());
      allDerived.addAll(generated.values());
      derived = new DerivedSet(allDerived);
      List<io.sentinel.point.PointSpec> withGenerated = new ArrayList<>(registry.points().values());
      generated.values().forEach(d -> withGenerated.add(d.spec()));
      registry = io.sentinel.point.Registry.of(withGenerated);
    }
    RuleSetChecks.check(loaded, problems);
    return new RuleSet(registry, loaded, derived);
  }

  static String relative(Path dir, Path file) {
    Path abs = file.toAbsolutePath().normalize();
    Path base = dir.toAbsolutePath().normalize();
    return abs.startsWith(base) ? base.relativize(abs).toString() : file.toString();
  }

  public static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static Optional<Path> firstExisting(Path... candidates) {
    for (Path p : candidates) {
      if (Files.exists(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
