package io.sentinel.site.revision;

import io.sentinel.site.yaml.Code;

/**
 * The catalogue of the ids of problems found in revision documents (REV-) and trusted keys (KEY-):
 * each id is declared here once, and docs/messages.md says what it means (MessageIdsTest keeps both
 * true).
 */
public enum RevisionCodes implements Code {
  KEY_001,
  KEY_002,
  KEY_003,
  REV_001,
  REV_002,
  REV_003,
  REV_004,
  REV_005,
  REV_006,
  REV_007,
  REV_008,
  REV_009,
  REV_010,
  REV_020,
  REV_021,
  REV_022,
  REV_024,
  REV_025,
  REV_026,
  REV_027,
  REV_030,
  REV_110,
  REV_111,
  REV_098,
  REV_099,
  REV_100;
}
