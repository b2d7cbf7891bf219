package io.sentinel.point;

import java.time.Duration;
import java.util.Optional;

/** One entry of the point registry. */
public record PointSpec(
    String id,
    PointType type,
    Direction direction,
    double deadband,
    Optional<Range> range,
    Optional<Duration> staleAfter,
    Optional<Duration> unavailableAfter,
    Optional<Value> releaseValue,
    Optional<PointSource> source,
    Optional<PointDriver> driver,
    Optional<Duration> commandMinInterval,
    Optional<Duration> pulseMax,
    SourceRef where,
    Optional<ValueMap> valueMap) {

  /** An inclusive numeric range; a value outside it is kept with quality bad. */
  public record Range(double min, double max) {
    public boolean contains(double v) {
      return v >= min && v <= max;
    }
  }

  /** Whether two entries define the same point, wherever each was written. */
  public boolean sameDefinition(PointSpec other) {
    return equals(other.withWhere(where));
  }

  public PointSpec withWhere(SourceRef w) {
    return with(direction, range, releaseValue, driver, w, valueMap);
  }

  /** This entry with its source's value map and its driver (docs/devices.md). */
  public PointSpec withDevice(Optional<ValueMap> map, Optional<PointDriver> d) {
    return with(direction, range, releaseValue, d, where, map);
  }

  /** The unit of a number point, or {@link MeasureUnit#NONE}. */
  public MeasureUnit unit() {
    return type instanceof PointType.Number n ? n.unit() : MeasureUnit.NONE;
  }

  public boolean inRange(Value value) {
    return range.isEmpty() || !(value instanceof Value.Num n) || range.get().contains(n.value());
  }

  /** A point with only the essentials, for tests and benchmarks. */
  public static PointSpec of(String id, PointType type, Direction direction) {
    return computed(id, type, 0, SourceRef.NONE).withDirection(direction);
  }

  /** A point the gateway computes (derived points): an input with no source, driver or range. */
  public static PointSpec computed(String id, PointType type, double deadband, SourceRef where) {
    return new PointSpec(
        id,
        type,
        Direction.IN,
        deadband,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        where,
        Optional.empty());
  }

  public PointSpec withDirection(Direction d) {
    return with(d, range, releaseValue, driver, where, valueMap);
  }

  public PointSpec withRange(Range r) {
    return with(direction, Optional.of(r), releaseValue, driver, where, valueMap);
  }

  public PointSpec withReleaseValue(Value v) {
    return with(direction, range, Optional.of(v), driver, where, valueMap);
  }

  /** This entry with the fields a wither may change; the others as they are. */
  private PointSpec with(
      Direction d,
      Optional<Range> r,
      Optional<Value> release,
      Optional<PointDriver> drv,
      SourceRef w,
      Optional<ValueMap> map) {
    return new PointSpec(
        id,
        type,
        d,
        deadband,
        r,
        staleAfter,
        unavailableAfter,
        release,
        source,
        drv,
        commandMinInterval,
        pulseMax,
        w,
        map);
  }
}
