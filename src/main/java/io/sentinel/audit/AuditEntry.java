package io.sentinel.audit;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One audited event before it takes its place in the chain: the fields seed 001 lists, plus {@code
 * reason}, {@code contenders} and {@code detail} so that a reader does not have to guess.
 *
 * @param kind {@code firing} (a rule asserted a claim), {@code action} (a rule's action fired),
 *     {@code conflict} (arbitration chose between two or more claims on a point), {@code override}
 *     (an operator override set, cleared or expired; rule id {@code override:operator}) or {@code
 *     resume} (an operator resumed a suspended rule)
 * @param matchedInputs the rule's inputs as it read them: name to {point, value, quality}
 * @param resolvedOutputs what arbitration made of the points concerned: {point, value, rule}
 * @param contenders every claim on the point, in arbitration order: {rule, band, priority, value}
 * @param cycle the engine pass, as milliseconds since the epoch (the engine runs at most one pass a
 *     millisecond)
 * @param detail kind-specific facts (an action's kind and fields)
 */
public record AuditEntry(
    String eventId,
    String kind,
    String ruleId,
    long revision,
    Map<String, Map<String, Object>> matchedInputs,
    List<Map<String, Object>> resolvedOutputs,
    String band,
    int priority,
    String decidingKey,
    List<Map<String, Object>> contenders,
    String deviceId,
    String zone,
    long cycle,
    Instant ts,
    String reason,
    Map<String, Object> detail) {}
