package io.sentinel.point;

/**
 * A change of a point: its value moved by at least the deadband, or its quality changed. A sample
 * that changes neither produces no transition.
 */
public record Transition(
    String pointId,
    PointState previous,
    PointState current,
    boolean valueChanged,
    boolean qualityChanged) {}
