package io.sentinel.engine;

import io.sentinel.point.Value;
import java.time.Instant;

/** A point about the gateway itself, e.g. {@code rule.pump-run-on.suspended}. */
public record SelfPoint(String name, Value value, Instant at) {}
