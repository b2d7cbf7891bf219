package io.sentinel.testing;

import io.sentinel.site.yaml.Code;

/**
 * The catalogue of the ids of problems found in fixtures (FIX-): each id is declared here once, and
 * docs/messages.md says what it means (MessageIdsTest keeps both true).
 */
public enum FixtureCodes implements Code {
  FIX_001,
  FIX_002,
  FIX_003,
  FIX_004,
  FIX_005,
  FIX_006,
  FIX_007,
  FIX_008,
  FIX_009,
  FIX_010;
}
