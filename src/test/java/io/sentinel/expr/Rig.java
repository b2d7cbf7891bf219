package io.sentinel.expr;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.Direction;
import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointState;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/** Declared inputs and their current states, for compiling and evaluating expressions. */
final class Rig {
  private static final Instant T0 = Instant.EPOCH;

  final LinkedHashMap<String, PointSpec> inputs = new LinkedHashMap<>();
  private final List<PointState> states = new ArrayList<>();

  /** The inputs most tests use; every value starts absent with quality unknown. */
  static Rig standard() {
    return new Rig()
        .number("flow", "degC")
        .bool("demand")
        .enumeration("mode", "off", "heating", "cooling")
        .text("label")
        .number("count", "")
        .number("loop", "mA")
        .number("amps", "A")
        .number("flow-temp", "degF")
        .number("age", "s")
        .number("pressure", "kPa")
        .number("humidity", "%");
  }

  Rig number(String name, String unit) {
    return add(name, new PointType.Number(MeasureUnit.parse(unit).orElseThrow()));
  }

  Rig bool(String name) {
    return add(name, new PointType.Bool());
  }

  Rig enumeration(String name, String... values) {
    return add(name, new PointType.Enum(List.of(values)));
  }

  Rig text(String name) {
    return add(name, new PointType.Text());
  }

  private Rig add(String name, PointType type) {
    inputs.put(name, PointSpec.of("site." + name, type, Direction.IN));
    states.add(PointState.unknown(T0));
    return this;
  }

  Rig set(String name, double value) {
    return set(name, Value.of(value), Quality.LIVE);
  }

  Rig set(String name, boolean value) {
    return set(name, Value.of(value), Quality.LIVE);
  }

  Rig set(String name, String value) {
    return set(name, Value.of(value), Quality.LIVE);
  }

  Rig absent(String name) {
    return set(name, Value.ABSENT, Quality.UNAVAILABLE);
  }

  Rig quality(String name, Quality quality) {
    return set(name, states.get(slot(name)).value(), quality);
  }

  Rig set(String name, Value value, Quality quality) {
    states.set(slot(name), new PointState(value, quality, T0));
    return this;
  }

  int slot(String name) {
    return new ArrayList<>(inputs.keySet()).indexOf(name);
  }

  Inputs inputs() {
    PointState[] now = states.toArray(PointState[]::new);
    return slot -> now[slot];
  }

  Compiled compile(String source) {
    return ExpressionCompiler.compile(source, inputs);
  }

  /** Compiles a source that must be correct. */
  Condition condition(String source) {
    Compiled compiled = compile(source);
    assertThat(compiled.problems()).as("problems of %s", source).isEmpty();
    return compiled.condition().orElseThrow();
  }

  boolean test(String source) {
    return condition(source).test(inputs());
  }

  List<ExprProblem> problems(String source) {
    Compiled compiled = compile(source);
    assertThat(compiled.condition()).as("condition of %s", source).isEmpty();
    return compiled.problems();
  }

  /** The single problem of a source. */
  ExprProblem problem(String source) {
    List<ExprProblem> problems = problems(source);
    assertThat(problems).as("problems of %s", source).hasSize(1);
    return problems.get(0);
  }
}
