package io.sentinel.site.yaml;

import static io.sentinel.site.yaml.Shape.either;
import static io.sentinel.site.yaml.Shape.keys;
import static io.sentinel.site.yaml.Shape.list;
import static io.sentinel.site.yaml.Shape.matching;
import static io.sentinel.site.yaml.Shape.required;
import static io.sentinel.site.yaml.Shape.text;
import static io.sentinel.site.yaml.ShapeParts.DURATION_PATTERN;
import static io.sentinel.site.yaml.ShapeParts.FREE_TEXT;
import static io.sentinel.site.yaml.ShapeParts.ID_PATTERN;

import io.sentinel.site.yaml.Shape.Keys;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The shapes of the documents a site is made of (CONTRACT sections 1, 3 and 4), declared once: rule
 * files in {@link RuleShapes}, the registry and derived points in {@link PointShapes}, site.yaml
 * and revisions here. The loaders accept exactly the keys declared there, and {@code
 * rules/schema/*.schema.json} is generated from {@link #documents} and {@link #definitions}: an
 * editor that completes a key from the schema completes one the loader takes. docs/schema.md says
 * how to regenerate the schema.
 */
public final class DocumentShapes {
  private DocumentShapes() {}

  public static final Keys SITE_FILE =
      keys(
          "site.yaml: the site's settings.",
          "name",
          text("The site's name (default: the folder's)."),
          "timezone",
          text("The time zone of time_of_day (e.g. Europe/London; default UTC)."),
          "zones",
          list("The zones wildcards resolve against.", text("")),
          "allow_unsigned_revisions",
          new Shape.Flag(
              "Accept pushed revisions not signed by a trusted key (default false). A change to an"
                  + " interlock or safety rule needs a review signature all the same."),
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
              PointShapes.POINTS_MAP,
              "derived",
              PointShapes.DERIVED_MAP,
              "rules",
              RuleShapes.RULE_LIST,
              "mode",
              Shape.choice(
                  "active (the default): replaces the running rule set; shadow: runs beside it on"
                      + " the live stream, commands recorded, never sent (docs/shadow.md).",
                  java.util.List.of("active", "shadow")),
              "signature",
              text("The author's base64 Ed25519 signature over the canonical body."),
              "review_signature",
              text(
                  "A reviewer's base64 Ed25519 signature over the canonical body (a review key;"
                      + " needed by a change to an interlock or safety rule).")),
          "revision",
          "site",
          "rules");

  /** The shapes referred to by name. */
  public static Map<String, Shape> definitions() {
    Map<String, Shape> d = new LinkedHashMap<>();
    d.put("duration", matching("A duration: 500ms, 30s, 20m, 1h30m, 2d.", DURATION_PATTERN));
    d.put("point_id", matching("A point id: lower-case words joined by - _ or .", ID_PATTERN));
    d.put("value", new Shape.PointValue("A point value: true/false, a number, or a string."));
    d.put("rule", RuleShapes.RULE);
    d.put("dsl_rule", RuleShapes.DSL_RULE);
    d.put("point", PointShapes.POINT);
    d.put(
        "derived_point",
        either("A derived point.", PointShapes.DERIVED_KINDS.values().toArray(Shape[]::new)));
    return d;
  }

  /** The documents, by the name of their schema file ({@code <name>.schema.json}). */
  public static Map<String, Shape> documents() {
    Map<String, Shape> d = new LinkedHashMap<>();
    d.put(
        "rules",
        either(
            "A rule file: a list of rules, a mapping with rules:, or one DSL rule.",
            RuleShapes.RULE_LIST,
            RuleShapes.RULE_FILE_MAPPING,
            new Shape.Ref("dsl_rule", "")));
    d.put("points", PointShapes.REGISTRY_FILE);
    d.put("derived", PointShapes.DERIVED_FILE);
    d.put("site", SITE_FILE);
    d.put("revision", REVISION);
    return d;
  }
}
