package io.sentinel;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.lang.ArchRule;
import java.time.Clock;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The table of docs/architecture.md as ArchUnit rules: which of our packages each package may
 * import, that the core knows no framework, database or hardware type, and that it reads no clock.
 */
final class ImportRules {
  private ImportRules() {}

  /** The pure core: a test drives it with a snapshot and a clock. */
  static final List<String> CORE =
      List.of(
          "door",
          "point",
          "expr",
          "rule",
          "site",
          "derived",
          "arbitration",
          "engine",
          "command",
          "pass",
          "passlog",
          "audit",
          "testing");

  private static final List<String> ALL =
      List.of(
          "door",
          "point",
          "expr",
          "rule",
          "site",
          "derived",
          "arbitration",
          "engine",
          "command",
          "pass",
          "passlog",
          "audit",
          "testing",
          "wire",
          "config",
          "mqtt",
          "gpio",
          "store",
          "api",
          "cli",
          "runtime");

  /** Package to the packages of ours it may import (besides itself). */
  static final Map<String, Set<String>> MAY_IMPORT = new LinkedHashMap<>();

  static {
    Set<String> core = Set.copyOf(CORE);
    // What may enter the gateway: pure checks and limits, imports none of ours.
    MAY_IMPORT.put("door", Set.of());
    MAY_IMPORT.put("point", Set.of());
    MAY_IMPORT.put("expr", Set.of("point"));
    // The rule set carries its derived points' definitions (RuleSet holds a DerivedSet).
    MAY_IMPORT.put("rule", Set.of("point", "expr", "derived"));
    MAY_IMPORT.put("site", Set.of("door", "point", "expr", "rule", "derived"));
    MAY_IMPORT.put("derived", Set.of("point", "expr"));
    MAY_IMPORT.put("arbitration", Set.of("point", "rule"));
    MAY_IMPORT.put("engine", Set.of("point", "expr", "rule", "derived", "arbitration"));
    MAY_IMPORT.put(
        "command", Set.of("point", "expr", "rule", "site", "derived", "arbitration", "engine"));
    MAY_IMPORT.put(
        "pass",
        Set.of("point", "expr", "rule", "site", "derived", "arbitration", "engine", "command"));
    MAY_IMPORT.put(
        "passlog", Set.of("point", "expr", "rule", "derived", "arbitration", "engine", "command"));
    MAY_IMPORT.put(
        "audit", Set.of("point", "expr", "rule", "derived", "arbitration", "engine", "command"));
    MAY_IMPORT.put("testing", without(core, "audit"));
    MAY_IMPORT.put("wire", core);
    // The one list of sentinel.* keys: read by the adapters that are configured, imports none.
    MAY_IMPORT.put("config", Set.of());
    MAY_IMPORT.put("mqtt", with(core, "wire"));
    MAY_IMPORT.put("gpio", with(core, "wire"));
    MAY_IMPORT.put("store", with(core, "wire", "config"));
    // Where the gateway is put together: these three may use the adapters.
    MAY_IMPORT.put("api", with(core, "wire", "config", "store", "runtime"));
    MAY_IMPORT.put("cli", without(Set.copyOf(ALL), "cli", "api"));
    MAY_IMPORT.put("runtime", without(Set.copyOf(ALL), "runtime", "cli"));
  }

  /** Types the core must not know. */
  static final String[] FRAMEWORKS = {
    "io.quarkus..",
    "io.vertx..",
    "io.netty..",
    "com.pi4j..",
    "java.sql..",
    "javax.sql..",
    "org.postgresql..",
    "jakarta..",
    "org.jboss..",
    "io.smallrye..",
    "org.eclipse.microprofile.."
  };

  /** Package {@code pkg} imports none of ours but those the table allows. */
  static ArchRule imports(String pkg) {
    List<String> forbidden = new ArrayList<>();
    for (String other : ALL) {
      if (!other.equals(pkg) && !MAY_IMPORT.get(pkg).contains(other)) {
        forbidden.add("io.sentinel." + other + "..");
      }
    }
    return noClasses()
        .that()
        .resideInAPackage("io.sentinel." + pkg + "..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(forbidden.toArray(String[]::new))
        .as(pkg + " imports only " + new TreeSet<>(MAY_IMPORT.get(pkg)))
        .allowEmptyShould(true); // site: there before its loaders are
  }

  /** Every class lives in a package of the table: a new package needs a row first. */
  static ArchRule everyPackageInTheTable() {
    return classes()
        .should()
        .resideInAnyPackage(ALL.stream().map(p -> "io.sentinel." + p + "..").toArray(String[]::new))
        .as("every package has a row in docs/architecture.md");
  }

  static ArchRule coreKnowsNoFramework() {
    return noClasses()
        .that()
        .resideInAnyPackage(core())
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(FRAMEWORKS)
        .as("the core imports no Quarkus, Vert.x, netty, Pi4J or SQL type");
  }

  static ArchRule coreReadsNoClock() {
    return noClasses()
        .that()
        .resideInAnyPackage(core())
        .should()
        .callMethod(Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(Clock.class, "systemUTC")
        .orShould()
        .callMethod(Clock.class, "systemDefaultZone")
        .orShould()
        .callMethod(InstantSource.class, "system")
        .as("the core reads no clock: time is handed to it");
  }

  private static String[] core() {
    return CORE.stream().map(p -> "io.sentinel." + p + "..").toArray(String[]::new);
  }

  private static Set<String> with(Set<String> base, String... more) {
    Set<String> s = new TreeSet<>(base);
    s.addAll(List.of(more));
    return s;
  }

  private static Set<String> without(Set<String> base, String... less) {
    Set<String> s = new TreeSet<>(base);
    List.of(less).forEach(s::remove);
    return s;
  }
}
