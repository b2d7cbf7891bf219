package io.sentinel.rule;

import io.sentinel.point.Value;
import java.util.List;
import java.util.Objects;

/** The class of a rule in band interlock (seed 000): what it does before its inputs are known. */
public sealed interface Interlock {
  /** The class names as a rule writes them. */
  List<String> NAMES = List.of("fail_safe", "fail_clear");

  /** Asserts {@code value} on its claimed points from core start until its inputs are live. */
  record FailSafe(Value value) implements Interlock {
    public FailSafe {
      Objects.requireNonNull(value, "a fail_safe interlock needs its fail_value");
    }
  }

  /** Claims nothing until its inputs are live, like any other rule. */
  record FailClear() implements Interlock {}
}
