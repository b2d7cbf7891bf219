package io.sentinel.mqtt;

import io.sentinel.door.Door;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Value;
import io.sentinel.point.ValueMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Optional;

/**
 * The {@link IngestDecoder}'s reading of one value: checked against its point's type and unit (a
 * number in a compatible unit converted), or spelled the device's way through the point's value
 * map; and how hostile input is quoted in a rejection.
 */
final class IngestValues {
  private IngestValues() {}

  /** A value checked against its point's type, or the reason it does not fit. */
  record Typed(Value value, IngestDecoder.Rejection rejection) {
    static Typed no(RejectReason reason, String message) {
      return new Typed(null, new IngestDecoder.Rejection(reason, "", Optional.empty(), message));
    }
  }

  static Typed typed(PointSpec spec, Object raw, MeasureUnit unit, boolean unitGiven) {
    PointType type = spec.type();
    if (type instanceof PointType.Bool) {
      if (unitGiven) {
        return Typed.no(RejectReason.WRONG_UNIT, spec.id() + " is bool and has no unit");
      }
      return raw instanceof Boolean b
          ? new Typed(Value.of(b), null)
          : Typed.no(RejectReason.WRONG_TYPE, spec.id() + " is bool, found " + describe(raw));
    }
    if (type instanceof PointType.Number n) {
      if (!(raw instanceof Number number)) {
        return Typed.no(RejectReason.WRONG_TYPE, spec.id() + " is number, found " + describe(raw));
      }
      double d = number.doubleValue();
      if (!type.accepts(Value.of(d))) {
        return Typed.no(RejectReason.NOT_FINITE, spec.id() + ": not a finite number");
      }
      if (unitGiven && !unit.equals(n.unit())) {
        if (!unit.isCompatible(n.unit())) {
          return Typed.no(
              RejectReason.WRONG_UNIT,
              spec.id() + " is in " + n.unit().describe() + ", not " + unit.describe());
        }
        d = unit.converterTo(n.unit()).applyAsDouble(d);
        if (!Double.isFinite(d)) {
          // 1e304 bar is finite, in Pa it is not: refused here, never handed to the pass.
          return Typed.no(
              RejectReason.NOT_FINITE,
              spec.id()
                  + ": "
                  + clip(String.valueOf(number))
                  + " "
                  + unit.describe()
                  + " is not a finite number in "
                  + n.unit().describe());
        }
      }
      return new Typed(Value.of(d), null);
    }
    if (unitGiven) {
      return Typed.no(RejectReason.WRONG_UNIT, spec.id() + " is " + type.name() + ", no unit");
    }
    if (!(raw instanceof String s)) {
      return Typed.no(
          RejectReason.WRONG_TYPE, spec.id() + " is " + type.name() + ", found " + describe(raw));
    }
    if (type instanceof PointType.Enum e && !type.accepts(Value.of(s))) {
      return Typed.no(
          RejectReason.NOT_IN_ENUM, spec.id() + ": '" + clip(s) + "' is not one of " + e.values());
    }
    return new Typed(Value.of(s), null);
  }

  /** A value spelled the device's way, through the point's value map (docs/devices.md). */
  static Typed mapped(PointSpec spec, ValueMap map, Object raw) {
    if (raw instanceof JsonObject || raw instanceof JsonArray) {
      return Typed.no(RejectReason.WRONG_TYPE, spec.id() + ": found " + describe(raw));
    }
    String spelled = ValueMap.spellingOf(raw);
    return map.toPoint(spelled)
        .map(v -> new Typed(v, null))
        .orElseGet(
            () ->
                Typed.no(
                    RejectReason.WRONG_TYPE,
                    spec.id()
                        + ": '"
                        + clip(spelled)
                        + "' is not in its value map ("
                        + clip(map.spellings(), 80)
                        + ")"));
  }

  static String describe(Object raw) {
    if (raw instanceof String s) {
      return "the string \"" + clip(s) + "\"";
    }
    if (raw instanceof JsonObject) {
      return "an object";
    }
    if (raw instanceof JsonArray) {
      return "an array";
    }
    return raw == null ? "null" : clip(raw.toString());
  }

  /** Hostile input is quoted in events, never at length nor with control characters. */
  static String clip(String s) {
    return clip(s, 40);
  }

  static String clip(String s, int max) {
    return Door.printable(s, max);
  }
}
