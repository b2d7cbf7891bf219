package io.sentinel.site.dsl;

import io.sentinel.site.yaml.Code;

/**
 * The catalogue of the ids of problems found in rules of the DSL (DSL-): each id is declared here
 * once, and docs/messages.md says what it means (MessageIdsTest keeps both true).
 */
public enum DslCodes implements Code {
  DSL_001,
  DSL_002,
  DSL_010,
  DSL_011,
  DSL_012,
  DSL_013,
  DSL_014,
  DSL_015,
  DSL_016,
  DSL_017,
  DSL_018,
  DSL_019,
  DSL_020,
  DSL_021,
  DSL_022,
  DSL_023,
  DSL_024,
  DSL_025,
  DSL_030,
  DSL_031,
  DSL_032,
  DSL_033,
  DSL_034,
  DSL_035,
  DSL_040,
  DSL_041,
  DSL_042,
  DSL_043,
  DSL_044;
}
