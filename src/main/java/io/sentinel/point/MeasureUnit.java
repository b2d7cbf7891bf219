package io.sentinel.point;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;
import javax.measure.Unit;
import javax.measure.UnitConverter;
import tech.units.indriya.AbstractUnit;
import tech.units.indriya.function.RationalNumber;
import tech.units.indriya.unit.Units;

/**
 * A unit of measurement, named by the symbol a site writes in YAML or in an expression. The
 * arithmetic of units (dimensions, conversions) is Indriya's; this class only fixes the symbols
 * Sentinel accepts, so that a typo is an error rather than a new unit.
 */
public record MeasureUnit(String symbol, Unit<?> measure) {

  /** A number without a unit: counts, ratios. */
  public static final MeasureUnit NONE = new MeasureUnit("", AbstractUnit.ONE);

  private static final Map<String, Unit<?>> CATALOGUE = catalogue();

  private static Map<String, Unit<?>> catalogue() {
    Map<String, Unit<?>> c = new LinkedHashMap<>();
    c.put("degC", Units.CELSIUS);
    // 1 degF = 5/9 K, with its zero at 459.67 degrees Rankine.
    c.put(
        "degF",
        Units.KELVIN.multiply(RationalNumber.of(5, 9)).shift(RationalNumber.of(45967, 100)));
    c.put("K", Units.KELVIN);
    c.put("%", Units.PERCENT);
    c.put("ppm", AbstractUnit.ONE.divide(1_000_000));
    c.put("Pa", Units.PASCAL);
    c.put("kPa", Units.PASCAL.multiply(1_000));
    c.put("mbar", Units.PASCAL.multiply(100));
    c.put("bar", Units.PASCAL.multiply(100_000));
    c.put("V", Units.VOLT);
    c.put("mV", Units.VOLT.divide(1_000));
    c.put("A", Units.AMPERE);
    c.put("mA", Units.AMPERE.divide(1_000));
    c.put("W", Units.WATT);
    c.put("kW", Units.WATT.multiply(1_000));
    c.put("Wh", Units.JOULE.multiply(3_600));
    c.put("kWh", Units.JOULE.multiply(3_600_000));
    c.put("Hz", Units.HERTZ);
    c.put("rpm", Units.HERTZ.divide(60));
    c.put("ms", Units.SECOND.divide(1_000));
    c.put("s", Units.SECOND);
    c.put("min", Units.MINUTE);
    c.put("h", Units.HOUR);
    c.put("mm", Units.METRE.divide(1_000));
    c.put("cm", Units.METRE.divide(100));
    c.put("m", Units.METRE);
    c.put("l", Units.LITRE);
    c.put("m3", Units.CUBIC_METRE);
    c.put("l/min", Units.LITRE.divide(Units.MINUTE));
    c.put("l/h", Units.LITRE.divide(Units.HOUR));
    c.put("m3/h", Units.CUBIC_METRE.divide(Units.HOUR));
    c.put("lx", Units.LUX);
    return java.util.Collections.unmodifiableMap(c);
  }

  public static Optional<MeasureUnit> parse(String symbol) {
    if (symbol.isEmpty()) {
      return Optional.of(NONE);
    }
    Unit<?> unit = CATALOGUE.get(symbol);
    return unit == null ? Optional.empty() : Optional.of(new MeasureUnit(symbol, unit));
  }

  public static Set<String> symbols() {
    return CATALOGUE.keySet();
  }

  public boolean isNone() {
    return symbol.isEmpty();
  }

  /**
   * Whether a number in this unit converts into {@code other}: the same unit, or the same dimension
   * (degC and degF, mA and A); a number without unit meets only another without. The one definition
   * of unit compatibility: expressions, the DSL and ingest all ask this.
   */
  public boolean isCompatible(MeasureUnit other) {
    if (equals(other)) {
      return true;
    }
    return !isNone() && !other.isNone() && measure.isCompatible(other.measure);
  }

  /** Converts a number in this unit to {@code target}; only for compatible units. */
  public DoubleUnaryOperator converterTo(MeasureUnit target) {
    if (symbol.equals(target.symbol)) {
      return DoubleUnaryOperator.identity();
    }
    UnitConverter converter = toAny(measure, target.measure);
    return converter::convert;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static UnitConverter toAny(Unit from, Unit to) {
    return from.getConverterTo(to);
  }

  /** What an error message says: the symbol, or "no unit". */
  public String describe() {
    return isNone() ? "no unit" : symbol;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MeasureUnit u && u.symbol.equals(symbol);
  }

  @Override
  public int hashCode() {
    return symbol.hashCode();
  }

  @Override
  public String toString() {
    return symbol;
  }
}
