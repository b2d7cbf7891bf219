package io.sentinel.rule;

import io.sentinel.point.SourceRef;
import io.sentinel.point.Value;
import java.time.Duration;
import java.util.Optional;

/** A value a rule holds on a point while its condition is true. */
public record ClaimSpec(
    String pointId, Value value, Optional<Duration> expiresIn, SourceRef where) {}
