package io.sentinel.point;

import java.util.List;

/** The type of a point's value, as the registry declares it. */
public sealed interface PointType {
  String name();

  /** Whether a value of this type may be held (range is the registry entry's business). */
  boolean accepts(Value value);

  record Bool() implements PointType {
    @Override
    public String name() {
      return "bool";
    }

    @Override
    public boolean accepts(Value value) {
      return value instanceof Value.Bool;
    }
  }

  record Number(MeasureUnit unit) implements PointType {
    @Override
    public String name() {
      return "number";
    }

    @Override
    public boolean accepts(Value value) {
      return value instanceof Value.Num n && Double.isFinite(n.value());
    }
  }

  record Enum(List<String> values) implements PointType {
    public Enum {
      values = List.copyOf(values);
    }

    @Override
    public String name() {
      return "enum";
    }

    @Override
    public boolean accepts(Value value) {
      return value instanceof Value.Text t && values.contains(t.value());
    }
  }

  record Text() implements PointType {
    @Override
    public String name() {
      return "string";
    }

    @Override
    public boolean accepts(Value value) {
      return value instanceof Value.Text;
    }
  }
}
