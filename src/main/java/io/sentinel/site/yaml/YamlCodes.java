package io.sentinel.site.yaml;

/**
 * The catalogue of the ids of problems found in YAML plumbing (YAML-) and values of points (VAL-):
 * each id is declared here once, and docs/messages.md says what it means (MessageIdsTest keeps both
 * true).
 */
public enum YamlCodes implements Code {
  VAL_001,
  VAL_002,
  VAL_003,
  VAL_004,
  YAML_001,
  YAML_010,
  YAML_011,
  YAML_012,
  YAML_013,
  YAML_014,
  YAML_015,
  YAML_020,
  YAML_021,
  YAML_022,
  YAML_100,
  YAML_101,
  YAML_102;
}
