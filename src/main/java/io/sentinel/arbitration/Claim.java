package io.sentinel.arbitration;

import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Instant;

/**
 * A rule's claim on a point as arbitration sees it.
 *
 * @param freshness the newest change among the rule's inputs when it claimed
 * @param matched how many conditions matched (DSL rules; 0 for native rules)
 */
public record Claim(
    String ruleId,
    String pointId,
    Band band,
    int priority,
    Value value,
    Instant freshness,
    int matched) {}
