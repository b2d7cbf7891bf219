package io.sentinel.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the greenhouse bench site, line for line what {@code shared/bench/gen-bench-site.sh}
 * writes: N zones, each a temperature input, a vent output and one rule (vent claimed while temp
 * &gt; 28, released otherwise). With {@code derived > 0}, a {@code derived.yaml} of that many
 * derived points over the first zones' temperatures, which no rule reads (dashboards): odd zones a
 * hysteresis (on above 29, off below 27), even zones a 5 s rolling_avg, so the derived layer
 * settles on every sample of those zones while the rules, and so the oracle, stay as they are.
 */
final class GreenhouseSite {
  private GreenhouseSite() {}

  /**
   * A site loader reads a YAML document of at most 2 MiB (issue 13); 10,000 of these rules are 2.4
   * MB. Past this many zones the rules go in files of this many, {@code rules/bench-01.yaml} on, in
   * zone order: the same rules in the same order as the shared script's one {@code bench.yaml}.
   */
  private static final int RULES_PER_FILE = 4000;

  private static void writeRules(Path dir, int file, CharSequence rules) throws IOException {
    Files.writeString(
        dir.resolve("rules").resolve(String.format(java.util.Locale.ROOT, "bench-%02d.yaml", file)),
        rules);
  }

  static Path write(int zones, int derived, Path dir) throws IOException {
    if (derived > zones) {
      throw new IllegalArgumentException("at most one derived point per zone: " + derived);
    }
    Files.createDirectories(dir.resolve("rules"));
    StringBuilder points = new StringBuilder("points:\n");
    StringBuilder rules = new StringBuilder();
    int file = 0;
    for (int i = 1; i <= zones; i++) {
      if (zones > RULES_PER_FILE && i > 1 && (i - 1) % RULES_PER_FILE == 0) {
        writeRules(dir, ++file, rules);
        rules.setLength(0);
      }
      points
          .append("  bench.z")
          .append(i)
          .append(
              ".temp: { type: number, unit: degC, direction: in, deadband: 0.1, range: [-40, 80] }\n")
          .append("  bench.z")
          .append(i)
          .append(".vent: { type: bool, direction: out, release_value: false }\n");
      rules
          .append("- id: vent-z")
          .append(i)
          .append('\n')
          .append("  band: automation\n")
          .append("  inputs: { temp: bench.z")
          .append(i)
          .append(".temp }\n")
          .append("  trigger: { on: transition, of: [temp] }\n")
          .append("  when: temp.value > 28\n")
          .append("  claims: [ { point: bench.z")
          .append(i)
          .append(".vent, value: true } ]\n")
          .append("  on_input_loss: release\n")
          .append("  warmup: all_inputs_live\n");
    }
    Files.writeString(dir.resolve("points.yaml"), points);
    if (zones > RULES_PER_FILE) {
      writeRules(dir, ++file, rules);
    } else {
      Files.writeString(dir.resolve("rules").resolve("bench.yaml"), rules);
    }
    if (derived > 0) {
      StringBuilder d = new StringBuilder("derived:\n");
      for (int i = 1; i <= derived; i++) {
        String of = "bench.z" + i + ".temp";
        if (i % 2 == 1) {
          d.append("  bench.z" + i + ".hot: { kind: hysteresis, of: " + of)
              .append(", on_above: 29, off_below: 27 }\n");
        } else {
          d.append("  bench.z" + i + ".avg: { kind: rolling_avg, of: " + of)
              .append(", window: 5s, deadband: 0.1 }\n");
        }
      }
      Files.writeString(dir.resolve("derived.yaml"), d);
    }
    return dir;
  }
}
