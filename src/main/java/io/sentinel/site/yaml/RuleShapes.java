package io.sentinel.site.yaml;

import static io.sentinel.site.yaml.Shape.choice;
import static io.sentinel.site.yaml.Shape.either;
import static io.sentinel.site.yaml.Shape.exactlyOne;
import static io.sentinel.site.yaml.Shape.keys;
import static io.sentinel.site.yaml.Shape.list;
import static io.sentinel.site.yaml.Shape.matching;
import static io.sentinel.site.yaml.Shape.required;
import static io.sentinel.site.yaml.Shape.text;
import static io.sentinel.site.yaml.ShapeParts.DURATION_PATTERN;
import static io.sentinel.site.yaml.ShapeParts.FREE_TEXT;
import static io.sentinel.site.yaml.ShapeParts.ID_PATTERN;
import static io.sentinel.site.yaml.ShapeParts.duration;
import static io.sentinel.site.yaml.ShapeParts.ordered;
import static io.sentinel.site.yaml.ShapeParts.pointId;
import static io.sentinel.site.yaml.ShapeParts.union;
import static io.sentinel.site.yaml.ShapeParts.value;
import static io.sentinel.site.yaml.ShapeParts.wireNames;

import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import io.sentinel.site.yaml.Shape.Keys;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The shapes of rule files: native rules (seed 000) and DSL rules (seed 001). */
public final class RuleShapes {
  private RuleShapes() {}

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

  static final Shape TRIGGER_OF =
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

  static final Shape ON_INPUT_LOSS =
      either(
          "What the rule does when its inputs no longer meet required_quality.",
          choice(
              "release: drop the claims; hold: keep them until hold_max.",
              List.of("release", "hold")),
          matching("assert(<value>): claim this value instead.", "assert\\(.+\\)"),
          INPUT_LOSS_ASSERT);

  static final Shape WARMUP =
      either(
          "When the rule starts deciding after a start.",
          choice("", List.of("all_inputs_live", "all_inputs_known")),
          matching(
              "deadline(<duration>): at the latest after this.",
              "deadline\\(" + DURATION_PATTERN + "\\)"));

  static final Shape REQUIRED_QUALITY =
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

  static final Shape RULE_LIST =
      list(
          "Rules, native or DSL.",
          either("", new Shape.Ref("rule", ""), new Shape.Ref("dsl_rule", "")));

  /** A rule file written as a mapping rather than a list. */
  public static final Keys RULE_FILE_MAPPING =
      required(keys("A rule file as a mapping.", "rules", RULE_LIST), "rules");
}
