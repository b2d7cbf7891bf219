package io.sentinel.site.rules;

import io.sentinel.site.yaml.Code;

/**
 * The catalogue of the ids of problems found in native rules and the checks both rule forms share
 * (RULE-): each id is declared here once, and docs/messages.md says what it means (MessageIdsTest
 * keeps both true).
 */
public enum RuleCodes implements Code {
  RULE_001,
  RULE_002,
  RULE_003,
  RULE_004,
  RULE_005,
  RULE_006,
  RULE_010,
  RULE_011,
  RULE_020,
  RULE_021,
  RULE_022,
  RULE_023,
  RULE_024,
  RULE_025,
  RULE_026,
  RULE_027,
  RULE_028,
  RULE_030,
  RULE_040,
  RULE_041,
  RULE_042,
  RULE_043,
  RULE_044,
  RULE_045,
  RULE_046,
  RULE_047,
  RULE_050,
  RULE_051,
  RULE_052,
  RULE_060,
  RULE_061,
  RULE_062,
  RULE_063,
  RULE_064,
  RULE_065,
  RULE_066,
  RULE_070,
  RULE_071,
  RULE_072,
  RULE_073,
  RULE_074,
  RULE_075,
  RULE_076,
  RULE_080,
  RULE_081;
}
