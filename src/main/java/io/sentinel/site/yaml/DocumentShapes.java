package io.sentinel.site.yaml;

import static io.sentinel.site.yaml.Shape.choice;
import static io.sentinel.site.yaml.Shape.either;
import static io.sentinel.site.yaml.Shape.exactlyOne;
import static io.sentinel.site.yaml.Shape.keys;
import static io.sentinel.site.yaml.Shape.list;
import static io.sentinel.site.yaml.Shape.matching;
import static io.sentinel.site.yaml.Shape.required;
import static io.sentinel.site.yaml.Shape.text;

import io.sentinel.point.Direction;
import io.sentinel.point.MeasureUnit;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.site.yaml.Shape.Keys;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;

/**
 * The shapes of the documents a site is made of (CONTRACT sections 1, 3 and 4), declared once. The
 * loaders ({@link RuleLoader}, {@link DslLoader}, {@link RegistryLoader}, {@link DerivedLoader},
 * {@link Site}) accept exactly the keys declared here, and {@code rules/schema/*.schema.json} is
 * generated from here: an editor that completes a key from the schema completes one the loader
 * takes. docs/schema.md says how to regenerate the schema.
 */
public final class DocumentShapes {
  private DocumentShapes() {}

  /** Point and rule ids: lower-case words joined by {@code -}, {@code _} or {@code .}. */
  public static final String ID_PATTERN = "[a-z0-9][a-z0-9_-]*(\\.[a-z0-9_-]+)*";

  /** Durations as {@link YamlFile#parseDuration} reads them. */
  public static final String DURATION_PATTERN = "([0-9]+(ms|s|m|h|d))+";

  // ---- shared definitions --------------------------------------------------------------------

  static final Shape DURATION = new Shape.Ref("duration", "");
  static final Shape POINT_ID = new Shape.Ref("point_id", "");
  static final Shape VALUE = new Shape.Ref("value", "");

  private static Shape duration(String description) {
    return new Shape.Ref("duration", description);
  }

  private static Shape pointId(String description) {
    return new Shape.Ref("point_id", description);
  }

  private static Shape value(String description) {
    return new Shape.Ref("value", description);
  }

  private static List<String> wireNames(Enum<?>[] values) {
    return Arrays.stream(values).map(v -> v.name().toLowerCase(java.util.Locale.ROOT)).toList();
  }

  private static final Shape FREE_TEXT = text("Free text for people reading the file.");

  // ---- native rules (seed 000) ----------------------------------------------------------------

  public static final Keys CLAIM =
      required(
          keys(
              "A claim on an output point while the condition holds.",
              "point",
              pointId("The output point (direction out or inout)."),
              "value",
              value("The value claimed, of the point's type."),
              "expires_in",
              duration("The claim lapses unless the rule re-evaluates within this.")),
          "point",
          "value");

  private static final Shape TRIGGER_OF =
      either(
          "The input name(s) whose change triggers the rule.",
          text("An input name."),
          list("Input names.", text("An input name.")));

  /** Trigger keys by the value of {@code on}. */
  public static final Map<String, Keys> TRIGGERS =
      ordered(
          "transition",
          required(
              keys(
                  "Evaluate whenever an input's value or quality changes (the default).",
                  "on",
                  choice("", List.of("transition")),
                  "of",
                  TRIGGER_OF),
              "on"),
          "edge",
          required(
              keys(
                  "Evaluate when one bool or number input rises or falls.",
                  "on",
                  choice("", List.of("edge")),
                  "of",
                  text("The input name."),
                  "edge",
                  choice("rising or falling.", List.of("rising", "falling"))),
              "on",
              "of",
              "edge"),
          "quality",
          required(
              keys(
                  "Evaluate when an input's quality becomes one of to.",
                  "on",
                  choice("", List.of("quality")),
                  "of",
                  text("The input name."),
                  "to",
                  either(
                      "The qualities that trigger.",
                      choice("", List.of("stale", "unavailable", "bad")),
                      list("", choice("", List.of("stale", "unavailable", "bad"))))),
              "on",
              "of",
              "to"),
          "interval",
          required(
              keys(
                  "Evaluate every so often.",
                  "on",
                  choice("", List.of("interval")),
                  "every",
                  duration("How often.")),
              "on",
              "every"));

  /** Every key some trigger takes (read before {@code on} says which). */
  public static final Set<String> TRIGGER_KEYS = union(TRIGGERS);

  /** Action keys by the value of {@code kind}. */
  public static final Map<String, Keys> ACTIONS =
      ordered(
          "notify",
          required(
              keys(
                  "Send a notification when the condition becomes true.",
                  "kind",
                  choice("", List.of("notify")),
                  "cooldown",
                  duration("At most one notification per cooldown."),
                  "channel",
                  text("Where the notification goes."),
                  "message",
                  text(
                      "The text; {{ input.value }}, {{ input.quality }} and {{ rule }} are filled in."),
                  "zone",
                  text("The zone it concerns (audit zone)."),
                  "severity",
                  text("How urgent.")),
              "kind",
              "cooldown",
              "channel",
              "message"),
          "pulse",
          required(
              keys(
                  "Switch a bool output on for a while.",
                  "kind",
                  choice("", List.of("pulse")),
                  "cooldown",
                  duration("At most one pulse per cooldown."),
                  "point",
                  pointId("The bool output point."),
                  "duration",
                  duration("How long the output stays on (at most the point's pulse_max).")),
              "kind",
              "cooldown",
              "point",
              "duration"));

  public static final Keys INPUT_LOSS_ASSERT =
      required(
          keys(
              "Assert this value on every claimed point while inputs are lost.",
              "assert",
              value("The value asserted.")),
          "assert");

  private static final Shape ON_INPUT_LOSS =
      either(
          "What the rule does when its inputs no longer meet required_quality.",
          choice(
              "release: drop the claims; hold: keep them until hold_max.",
              List.of("release", "hold")),
          matching("assert(<value>): claim this value instead.", "assert\\(.+\\)"),
          INPUT_LOSS_ASSERT);

  private static final Shape WARMUP =
      either(
          "When the rule starts deciding after a start.",
          choice("", List.of("all_inputs_live", "all_inputs_known")),
          matching(
              "deadline(<duration>): at the latest after this.",
              "deadline\\(" + DURATION_PATTERN + "\\)"));

  private static final Shape REQUIRED_QUALITY =
      choice("The input quality the rule decides on.", wireNames(Rule.RequiredQuality.values()));

  public static final Keys RULE =
      required(
          keys(
              "A native rule (seed 000): a condition over named inputs that claims outputs.",
              "id",
              matching("The rule's identity: lower-case words joined by - _ or .", ID_PATTERN),
              "description",
              FREE_TEXT,
              "band",
              choice("Its place in arbitration, highest first.", wireNames(Band.values())),
              "inputs",
              new Shape.NamedMap(
                  "Input name (used in when) to point id.",
                  Optional.of("[A-Za-z_][A-Za-z0-9_]*"),
                  pointId("")),
              "trigger",
              either(
                  "When the rule is evaluated (default: on any input transition).",
                  TRIGGERS.values().toArray(Shape[]::new)),
              "when",
              text(
                  "The condition: an expression over the inputs' value and quality (docs/expressions.md)."),
              "claims",
              list("The claims asserted while the condition holds.", CLAIM),
              "actions",
              list(
                  "Actions fired when the condition becomes true.",
                  either("", ACTIONS.values().toArray(Shape[]::new))),
              "on_input_loss",
              ON_INPUT_LOSS,
              "hold_max",
              duration("How long on_input_loss: hold keeps the claims."),
              "required_quality",
              REQUIRED_QUALITY,
              "warmup",
              WARMUP,
              "interlock_class",
              choice(
                  "Interlock rules: fail_safe asserts fail_value from the start and on doubt.",
                  io.sentinel.rule.Interlock.NAMES),
              "fail_value",
              value("The protective value of a fail_safe interlock."),
              "enabled",
              new Shape.Flag("false: the rule stays loaded and checked but is never evaluated.")),
          "id",
          "band",
          "inputs",
          "when",
          "on_input_loss",
          "warmup");

  // ---- DSL rules (seed 001) -------------------------------------------------------------------

  public static final Keys DSL_WHEN =
      exactlyOne(
          keys(
              "all: every condition holds; any: at least one does.",
              "all",
              list("Conditions (docs/dsl.md).", new Shape.Anything("A condition.")),
              "any",
              list("Conditions (docs/dsl.md).", new Shape.Anything("A condition."))));

  public static final Keys DSL_TIME_OF_DAY =
      exactlyOne(
          keys(
              "A time of day in the site's time zone (HH:MM).",
              "between",
              new Shape.ListOf("", text("HH:MM"), 2, Optional.of(2)),
              "gt",
              text("HH:MM"),
              "gte",
              text("HH:MM"),
              "lt",
              text("HH:MM"),
              "lte",
              text("HH:MM")));

  public static final Keys DSL_FADE_TO =
      required(
          keys(
              "Ramp a number output to value over a duration.",
              "value",
              value("The target (e.g. 30%)."),
              "over",
              duration("The ramp's length.")),
          "value",
          "over");

  public static final Keys DSL_RULE =
      required(
          keys(
              "A rule in the seed 001 DSL.",
              "rule",
              matching("The rule's identity.", ID_PATTERN),
              "priority",
              new Shape.Int(
                  "90-100: safety; 50-89: orchestration; 1-49: ambient.",
                  Optional.of(1L),
                  Optional.of(100L)),
              "description",
              FREE_TEXT,
              "when",
              DSL_WHEN,
              "then",
              list(
                  "Outputs and actions: output/set, pulse, fade_to, emit, hold_until.",
                  new Shape.Anything("An output or action (docs/dsl.md).")),
              "enabled",
              new Shape.Flag("false: the rule stays loaded and checked but is never evaluated."),
              "on_input_loss",
              ON_INPUT_LOSS,
              "warmup",
              WARMUP,
              "required_quality",
              REQUIRED_QUALITY,
              "hold_max",
              duration("How long on_input_loss: hold keeps the claims.")),
          "rule",
          "priority",
          "when",
          "then");

  private static final Shape RULE_LIST =
      list(
          "Rules, native or DSL.",
          either("", new Shape.Ref("rule", ""), new Shape.Ref("dsl_rule", "")));

  /** A rule file written as a mapping rather than a list. */
  public static final Keys RULE_FILE_MAPPING =
      required(keys("A rule file as a mapping.", "rules", RULE_LIST), "rules");

  // ---- the point registry -----------------------------------------------------------------------

  private static final Shape GPIO_PIN =
      new Shape.Int("BCM pin number on the 40-pin header.", Optional.of(0L), Optional.of(27L));

  public static final Keys SOURCE_GPIO =
      required(
          keys(
              "A Raspberry Pi input pin.",
              "pin",
              GPIO_PIN,
              "pull",
              choice("The pin's pull resistor.", List.of("up", "down", "none")),
              "debounce",
              duration("How long a level must hold."),
              "active_low",
              new Shape.Flag("true: the point is true when the pin reads low.")),
          "pin");

  public static final Keys SOURCE_MQTT =
      required(
          keys(
              "A third-party MQTT topic.",
              "topic",
              text("One exact topic (no wildcards)."),
              "json_path",
              text("Where the value is in the payload: $, $.a.b or $.a[0] (default $).")),
          "topic");

  public static final Keys SOURCE =
      exactlyOne(
          keys("Where the point's samples come from.", "gpio", SOURCE_GPIO, "mqtt", SOURCE_MQTT));

  public static final Keys DRIVER_GPIO =
      required(
          keys(
              "A Raspberry Pi output pin.",
              "pin",
              GPIO_PIN,
              "active_low",
              new Shape.Flag("true: the pin is low when the point is true.")),
          "pin");

  public static final Keys DRIVER_MQTT =
      keys(
          "Commands over MQTT.",
          "topic",
          text("The command topic (default sentinel/<site>/commands/<point>)."));

  public static final Keys DRIVER =
      exactlyOne(
          keys(
              "What the point's commands go to.",
              "gpio",
              DRIVER_GPIO,
              "mqtt",
              either("", new Shape.Nothing("The default topic."), DRIVER_MQTT)));

  public static final Keys COMMAND_RATE =
      required(
          keys(
              "At most one command per interval.",
              "min_interval",
              duration("The shortest time between two commands.")),
          "min_interval");

  public static final Keys POINT =
      required(
          keys(
              "A registered point.",
              "type",
              choice("The type of its value.", List.of("bool", "number", "enum", "string")),
              "unit",
              choice(
                  "The unit of a number point.",
                  new TreeSet<>(MeasureUnit.symbols()).stream().filter(s -> !s.isEmpty()).toList()),
              "values",
              list("The values of an enum point.", text("")),
              "direction",
              choice(
                  "in: a sensor; out: an actuator; inout: an actuator that reports back.",
                  wireNames(Direction.values())),
              "deadband",
              new Shape.Num("Changes smaller than this are no change.", OptionalDouble.of(0)),
              "range",
              new Shape.ListOf(
                  "[min, max]: values outside are kept with quality bad.",
                  new Shape.Num("", OptionalDouble.empty()),
                  2,
                  Optional.of(2)),
              "stale_after",
              duration("No sample for this long: quality stale."),
              "unavailable_after",
              duration("No sample for this long: quality unavailable (longer than stale_after)."),
              "release_value",
              value("The value the point takes when no rule claims it."),
              "source",
              SOURCE,
              "driver",
              DRIVER,
              "command_rate",
              COMMAND_RATE,
              "pulse_max",
              duration("The longest pulse the output accepts."),
              "description",
              FREE_TEXT),
          "type",
          "direction");

  // ---- derived points ---------------------------------------------------------------------------

  private static final Keys DERIVED_COMMON =
      keys(
          "",
          "kind",
          text("What it computes."),
          "of",
          pointId("The point it reads."),
          "description",
          FREE_TEXT);

  public static final Keys DERIVED_STEP =
      keys(
          "One step of a sequence.",
          "of",
          pointId("The point the step watches (default: the sequence's of)."),
          "when",
          text("The step's condition over value and quality."));

  /** Derived point keys by the value of {@code kind}, the common ones included. */
  public static final Map<String, Keys> DERIVED_KINDS =
      derived(
          ordered(
              "hysteresis",
              required(
                  keys(
                      "true above on_above until below off_below.",
                      "on_above",
                      new Shape.Num("", OptionalDouble.empty()),
                      "off_below",
                      new Shape.Num("", OptionalDouble.empty())),
                  "on_above",
                  "off_below"),
              "debounce",
              required(
                  keys("The input once it has held for stable_for.", "stable_for", duration("")),
                  "stable_for"),
              "rolling_avg",
              required(
                  keys(
                      "The average over a window.",
                      "window",
                      duration(""),
                      "deadband",
                      new Shape.Num("", OptionalDouble.of(0))),
                  "window"),
              "rate",
              required(
                  keys(
                      "The change per second over a window.",
                      "window",
                      duration(""),
                      "deadband",
                      new Shape.Num("", OptionalDouble.of(0))),
                  "window"),
              "age",
              keys(
                  "Seconds since the input's last sample.",
                  "every",
                  duration("How often it is updated (default 1s).")),
              "count",
              required(
                  keys(
                      "true while when held at least at_least times within.",
                      "when",
                      text("The condition counted."),
                      "at_least",
                      new Shape.Int("", Optional.of(1L), Optional.empty()),
                      "within",
                      duration("")),
                  "at_least",
                  "within"),
              "sequence",
              required(
                  keys(
                      "true when the steps happen in order within.",
                      "steps",
                      new Shape.ListOf("", DERIVED_STEP, 2, Optional.empty()),
                      "within",
                      duration("")),
                  "steps",
                  "within"),
              "absence",
              required(
                  keys(
                      "true when when has not held for within.",
                      "when",
                      text("The condition expected."),
                      "within",
                      duration("")),
                  "within"),
              "dedupe",
              required(
                  keys("Repeats within the window dropped.", "within", duration("")), "within"),
              "throttle",
              required(
                  keys(
                      "At most at_most changes per period.",
                      "at_most",
                      new Shape.Int("", Optional.of(1L), Optional.empty()),
                      "per",
                      duration("")),
                  "at_most",
                  "per")));

  // ---- files ------------------------------------------------------------------------------------

  private static final Shape POINTS_MAP =
      new Shape.NamedMap(
          "Point id to its entry.", Optional.of(ID_PATTERN), new Shape.Ref("point", ""));

  private static final Shape DERIVED_MAP =
      new Shape.NamedMap(
          "Derived point id to its definition.",
          Optional.of(ID_PATTERN),
          new Shape.Ref("derived_point", ""));

  public static final Keys REGISTRY_FILE =
      required(keys("points.yaml: the point registry.", "points", POINTS_MAP), "points");

  public static final Keys DERIVED_FILE =
      required(keys("derived.yaml: derived points.", "derived", DERIVED_MAP), "derived");

  public static final Keys SITE_FILE =
      keys(
          "site.yaml: the site's settings.",
          "name",
          text("The site's name (default: the folder's)."),
          "timezone",
          text("The time zone of time_of_day (e.g. Europe/London; default UTC)."),
          "zones",
          list("The zones wildcards resolve against.", text("")),
          "description",
          FREE_TEXT);

  /** A rule-set revision (CONTRACT section 4). */
  public static final Keys REVISION =
      required(
          keys(
              "A rule-set revision: pushed to sentinel/<site>/ruleset or validated over HTTP.",
              "revision",
              new Shape.Int("Increasing with every revision.", Optional.of(1L), Optional.empty()),
              "site",
              text("The site it is for."),
              "points",
              POINTS_MAP,
              "derived",
              DERIVED_MAP,
              "rules",
              RULE_LIST,
              "signature",
              text("Base64 Ed25519 signature over the canonical body.")),
          "revision",
          "site",
          "rules");

  /** The shapes referred to by name. */
  public static Map<String, Shape> definitions() {
    Map<String, Shape> d = new LinkedHashMap<>();
    d.put("duration", matching("A duration: 500ms, 30s, 20m, 1h30m, 2d.", DURATION_PATTERN));
    d.put("point_id", matching("A point id: lower-case words joined by - _ or .", ID_PATTERN));
    d.put("value", new Shape.PointValue("A point value: true/false, a number, or a string."));
    d.put("rule", RULE);
    d.put("dsl_rule", DSL_RULE);
    d.put("point", POINT);
    d.put(
        "derived_point", either("A derived point.", DERIVED_KINDS.values().toArray(Shape[]::new)));
    return d;
  }

  /** The documents, by the name of their schema file ({@code <name>.schema.json}). */
  public static Map<String, Shape> documents() {
    Map<String, Shape> d = new LinkedHashMap<>();
    d.put(
        "rules",
        either(
            "A rule file: a list of rules, a mapping with rules:, or one DSL rule.",
            RULE_LIST,
            RULE_FILE_MAPPING,
            new Shape.Ref("dsl_rule", "")));
    d.put("points", REGISTRY_FILE);
    d.put("derived", DERIVED_FILE);
    d.put("site", SITE_FILE);
    d.put("revision", REVISION);
    return d;
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** The keys of each variant, by its discriminating value (a trigger's on, an action's kind). */
  public static Map<String, Set<String>> keySets(Map<String, Keys> variants) {
    Map<String, Set<String>> m = new LinkedHashMap<>();
    variants.forEach((k, v) -> m.put(k, v.keys()));
    return java.util.Collections.unmodifiableMap(m);
  }

  private static Map<String, Keys> ordered(Object... pairs) {
    Map<String, Keys> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], (Keys) pairs[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  private static Map<String, Keys> derived(Map<String, Keys> kinds) {
    Map<String, Keys> m = new LinkedHashMap<>();
    kinds.forEach(
        (kind, k) -> {
          Keys common =
              new Keys(
                  "",
                  replace(DERIVED_COMMON.properties(), "kind", choice("", List.of(kind))),
                  new LinkedHashSet<>(
                      kind.equals("sequence") ? List.of("kind") : List.of("kind", "of")),
                  false);
          m.put(kind, common.with(k));
        });
    return java.util.Collections.unmodifiableMap(m);
  }

  private static Map<String, Shape> replace(Map<String, Shape> p, String key, Shape s) {
    Map<String, Shape> m = new LinkedHashMap<>(p);
    m.put(key, s);
    return m;
  }

  private static Set<String> union(Map<String, Keys> variants) {
    Set<String> all = new LinkedHashSet<>();
    variants.values().forEach(k -> all.addAll(k.keys()));
    return java.util.Collections.unmodifiableSet(all);
  }
}
