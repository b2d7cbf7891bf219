package io.sentinel.site;

import io.sentinel.site.yaml.Code;

/**
 * The catalogue of the ids of problems found in a site folder (SITE-), its registry (REG-) and
 * derived points (DER-): each id is declared here once, and docs/messages.md says what it means
 * (MessageIdsTest keeps both true).
 */
public enum SiteCodes implements Code {
  DER_001,
  DER_002,
  DER_003,
  DER_004,
  DER_005,
  DER_006,
  DER_007,
  DER_008,
  DER_009,
  DER_010,
  DER_011,
  REG_001,
  REG_002,
  REG_003,
  REG_004,
  REG_005,
  REG_006,
  REG_007,
  REG_008,
  REG_009,
  REG_010,
  REG_011,
  REG_012,
  REG_013,
  REG_014,
  REG_015,
  REG_016,
  REG_017,
  REG_018,
  REG_019,
  REG_020,
  REG_021,
  REG_022,
  REG_023,
  REG_100,
  REG_101,
  REG_102,
  REG_103,
  REG_104,
  REG_120,
  SITE_001,
  SITE_002;
}
