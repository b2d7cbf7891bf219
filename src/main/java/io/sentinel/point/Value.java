package io.sentinel.point;

/**
 * A point's value. Numbers are held in the unit their point declares; {@link Absent} stands for "no
 * value" so that no null crosses a package border.
 */
public sealed interface Value {
  Value ABSENT = new Absent();
  Value TRUE = new Bool(true);
  Value FALSE = new Bool(false);

  static Value of(boolean b) {
    return b ? TRUE : FALSE;
  }

  static Value of(double d) {
    return new Num(d);
  }

  static Value of(String s) {
    return new Text(s);
  }

  default boolean isPresent() {
    return !(this instanceof Absent);
  }

  /** The number this value holds, NaN when it holds none: how rules and the point table read it. */
  default double number() {
    return this instanceof Num n ? n.value() : Double.NaN;
  }

  /** 1 when this value is true, 0 when false, -1 when it is no bool. */
  default int truth() {
    return this instanceof Bool b ? (b.value() ? 1 : 0) : -1;
  }

  /** The value as JSON would carry it: a boolean, a number, a string or null. */
  Object toPlain();

  record Bool(boolean value) implements Value {
    @Override
    public Object toPlain() {
      return value;
    }

    @Override
    public String toString() {
      return Boolean.toString(value);
    }
  }

  record Num(double value) implements Value {
    @Override
    public Object toPlain() {
      return value == Math.rint(value) && Math.abs(value) < 1e15 ? (Object) (long) value : value;
    }

    @Override
    public String toString() {
      return toPlain().toString();
    }
  }

  /** A string or an enum symbol. */
  record Text(String value) implements Value {
    @Override
    public Object toPlain() {
      return value;
    }

    @Override
    public String toString() {
      return value;
    }
  }

  record Absent() implements Value {
    @Override
    public Object toPlain() {
      return null;
    }

    @Override
    public String toString() {
      return "absent";
    }
  }
}
