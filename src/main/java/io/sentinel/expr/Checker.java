package io.sentinel.expr;

import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import io.sentinel.point.Quality;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * Turns the untyped tree into the typed one, reporting every type and unit problem. A node that
 * failed becomes {@link Typed.Err}, about which nothing more is reported, so that one mistake gives
 * one problem.
 */
final class Checker {
  /** The type of a checked sub-expression, with its typed tree. */
  private sealed interface Typed {
    record B(BoolExpr e) implements Typed {}

    /** bare: a number written without unit, which takes the unit of the other side. */
    record N(NumExpr e, MeasureUnit unit, boolean bare) implements Typed {}

    /** enumValues is null for a string point. */
    record T(TextExpr e, List<String> enumValues) implements Typed {}

    record Q(QualityExpr e) implements Typed {}

    /** A bare word, resolved once the other side of a comparison tells what it is. */
    record Sym(String name) implements Typed {}

    record Err() implements Typed {}
  }

  private static final Typed ERR = new Typed.Err();

  /** Constants never read an input; anything else reading these is a bug. */
  private static final Inputs NO_INPUTS =
      slot -> {
        throw new IllegalStateException("a constant read input slot " + slot);
      };

  private final String source;
  private final List<String> names;
  private final List<PointSpec> specs;
  private final Map<String, Integer> slots = new HashMap<>();
  private final boolean[] read;
  private final Problems problems;

  Checker(String source, Map<String, PointSpec> inputs, Problems problems) {
    this.source = source;
    this.names = List.copyOf(inputs.keySet());
    this.specs = List.copyOf(inputs.values());
    for (int i = 0; i < names.size(); i++) {
      slots.put(names.get(i), i);
    }
    this.read = new boolean[names.size()];
    this.problems = problems;
  }

  /** The typed tree of a whole expression, or null if it has problems. */
  BoolExpr checkRoot(Ast tree) {
    return condition(tree, check(tree), "the expression");
  }

  /** The declared inputs that the checked expression references, in declaration order. */
  Set<String> inputsRead() {
    Set<String> result = new LinkedHashSet<>();
    for (int i = 0; i < read.length; i++) {
      if (read[i]) {
        result.add(names.get(i));
      }
    }
    return result;
  }

  private Typed check(Ast node) {
    if (node instanceof Ast.Logic n) {
      return logic(n);
    } else if (node instanceof Ast.Not n) {
      return not(n);
    } else if (node instanceof Ast.Compare n) {
      return n.op().isEquality() ? equality(n) : ordering(n);
    } else if (node instanceof Ast.In n) {
      return in(n);
    } else if (node instanceof Ast.Arith n) {
      return arith(n);
    } else if (node instanceof Ast.Neg n) {
      return neg(n);
    } else if (node instanceof Ast.Num n) {
      boolean bare = n.unit() == null;
      return new Typed.N(new NumExpr.Const(n.value()), bare ? MeasureUnit.NONE : n.unit(), bare);
    } else if (node instanceof Ast.Bool n) {
      return new Typed.B(new BoolExpr.Const(n.value()));
    } else if (node instanceof Ast.Str n) {
      return new Typed.T(new TextExpr.Const(n.value()), null);
    } else if (node instanceof Ast.Ref n) {
      return ref(n);
    } else if (node instanceof Ast.Sym n) {
      return sym(n);
    } else if (node instanceof Ast.Group n) {
      return check(n.inner());
    } else {
      return ERR; // Ast.Bad: already reported
    }
  }

  // ---- names -------------------------------------------------------------------------------

  private Typed ref(Ast.Ref n) {
    Integer slot = slots.get(n.name());
    if (slot == null) {
      String declared =
          names.isEmpty()
              ? "this rule declares no inputs"
              : "declared inputs are " + Names.list(names);
      problems.add(
          ProblemCode.UNKNOWN_INPUT,
          n.start(),
          "unknown input '" + n.name() + "': " + declared + Names.didYouMean(n.name(), names));
      return ERR;
    }
    read[slot] = true;
    if (n.quality()) {
      return new Typed.Q(new QualityExpr.Input(slot, n.name()));
    }
    PointType type = specs.get(slot).type();
    if (type instanceof PointType.Bool) {
      return new Typed.B(new BoolExpr.Input(slot, n.name()));
    } else if (type instanceof PointType.Number num) {
      return new Typed.N(new NumExpr.Input(slot, n.name()), num.unit(), false);
    } else if (type instanceof PointType.Enum e) {
      return new Typed.T(new TextExpr.Input(slot, n.name()), e.values());
    } else {
      return new Typed.T(new TextExpr.Input(slot, n.name()), null);
    }
  }

  private Typed sym(Ast.Sym n) {
    if (slots.containsKey(n.name())) {
      problems.add(
          ProblemCode.BARE_INPUT,
          n.start(),
          "'"
              + n.name()
              + "' is an input: write "
              + n.name()
              + ".value for its value or "
              + n.name()
              + ".quality for its quality");
      return ERR;
    }
    return new Typed.Sym(n.name());
  }

  /** The message part about a bare word that is not an input. */
  private String notAnInput(String word) {
    String declared =
        names.isEmpty()
            ? "this rule declares no inputs"
            : "declared inputs are " + Names.list(names);
    return "'"
        + word
        + "' is not a declared input ("
        + declared
        + ")"
        + Names.didYouMean(word, names);
  }

  // ---- conditions --------------------------------------------------------------------------

  /** {@code t} as a condition, or null (reported) if it is not one. */
  private BoolExpr condition(Ast node, Typed t, String what) {
    if (t instanceof Typed.B b) {
      return b.e();
    }
    if (t instanceof Typed.Err) {
      return null;
    }
    if (t instanceof Typed.Sym s) {
      problems.add(
          ProblemCode.UNRESOLVED_SYMBOL,
          node.start(),
          notAnInput(s.name())
              + "; a bare name is only allowed beside ==, != or in, compared with an enum value"
              + " or a quality, e.g. mode.value == "
              + s.name());
      return null;
    }
    String text = text(node);
    problems.add(
        ProblemCode.NOT_A_CONDITION,
        node.start(),
        what
            + " must be a condition (true or false), but "
            + text
            + " is "
            + kind(t)
            + ": compare it, e.g. "
            + example(text, t));
    return null;
  }

  private static String example(String text, Typed t) {
    if (t instanceof Typed.N) {
      return text + " > 35";
    } else if (t instanceof Typed.T txt) {
      return text
          + " == "
          + (txt.enumValues() == null
              ? "\"some text\""
              : txt.enumValues().isEmpty() ? "value" : txt.enumValues().get(0));
    } else {
      return text + " == live";
    }
  }

  private Typed logic(Ast.Logic n) {
    String what = "each side of " + n.op();
    BoolExpr l = condition(n.left(), check(n.left()), what);
    BoolExpr r = condition(n.right(), check(n.right()), what);
    if (l == null || r == null) {
      return ERR;
    }
    // Fold only when the result is a constant: a non-constant side keeps its own node so that
    // the absent value of a bool input still counts as false, not as absent.
    boolean absorbing = !n.isAnd(); // false absorbs and, true absorbs or
    if (l instanceof BoolExpr.Const c && c.value() == absorbing
        || r instanceof BoolExpr.Const d && d.value() == absorbing) {
      return new Typed.B(new BoolExpr.Const(absorbing));
    }
    if (l instanceof BoolExpr.Const && r instanceof BoolExpr.Const) {
      return new Typed.B(new BoolExpr.Const(!absorbing));
    }
    return new Typed.B(n.isAnd() ? new BoolExpr.And(l, r) : new BoolExpr.Or(l, r));
  }

  private Typed not(Ast.Not n) {
    BoolExpr operand = condition(n.operand(), check(n.operand()), "the operand of not");
    if (operand == null) {
      return ERR;
    }
    return new Typed.B(
        operand instanceof BoolExpr.Const c
            ? new BoolExpr.Const(!c.value())
            : new BoolExpr.Not(operand));
  }

  // ---- comparisons -------------------------------------------------------------------------

  private Typed equality(Ast.Compare n) {
    Typed l = check(n.left());
    Typed r = check(n.right());
    if (l instanceof Typed.Err || r instanceof Typed.Err) {
      return ERR;
    }
    if (l instanceof Typed.Sym ls && r instanceof Typed.Sym) {
      problems.add(
          ProblemCode.UNRESOLVED_SYMBOL,
          n.start(),
          "neither '"
              + text(n.left())
              + "' nor '"
              + text(n.right())
              + "' is a declared input: one side of "
              + n.op().symbol()
              + " must be an input, e.g. mode.value "
              + n.op().symbol()
              + " "
              + ls.name());
      return ERR;
    }
    if (l instanceof Typed.Sym ls) {
      l = resolve(ls, n.left(), r, n.right());
    } else if (r instanceof Typed.Sym rs) {
      r = resolve(rs, n.right(), l, n.left());
    }
    if (l == null || r == null) {
      return ERR;
    }
    boolean equal = n.op() == CmpOp.EQ;
    BoolExpr result;
    if (l instanceof Typed.N ln && r instanceof Typed.N rn) {
      NumPair pair = unify(ln, n.left(), rn, n.right(), "compare", n.opStart());
      if (pair == null) {
        return ERR;
      }
      result = new BoolExpr.NumCompare(n.op(), pair.left(), pair.right());
    } else if (l instanceof Typed.B lb && r instanceof Typed.B rb) {
      result = new BoolExpr.BoolCompare(equal, lb.e(), rb.e());
    } else if (l instanceof Typed.T lt && r instanceof Typed.T rt) {
      if (!textsMatch(lt, n.left(), rt, n.right(), n.opStart(), "compare", "with")) {
        return ERR;
      }
      result = new BoolExpr.TextCompare(equal, lt.e(), rt.e());
    } else if (l instanceof Typed.Q lq && r instanceof Typed.Q rq) {
      result = new BoolExpr.QualityCompare(equal, lq.e(), rq.e());
    } else {
      mismatch(n.left(), l, n.right(), r, n.opStart(), "");
      return ERR;
    }
    return new Typed.B(fold(result, isConst(l) && isConst(r)));
  }

  private Typed ordering(Ast.Compare n) {
    Typed l = check(n.left());
    Typed r = check(n.right());
    if (l instanceof Typed.Err || r instanceof Typed.Err) {
      return ERR;
    }
    if (!(l instanceof Typed.N)) {
      notANumber(
          n.left(),
          l,
          n.opStart(),
          ProblemCode.NOT_ORDERED,
          "'" + n.op().symbol() + "' compares numbers only");
      return ERR;
    }
    if (!(r instanceof Typed.N)) {
      notANumber(
          n.right(),
          r,
          n.opStart(),
          ProblemCode.NOT_ORDERED,
          "'" + n.op().symbol() + "' compares numbers only");
      return ERR;
    }
    NumPair pair = unify((Typed.N) l, n.left(), (Typed.N) r, n.right(), "compare", n.opStart());
    if (pair == null) {
      return ERR;
    }
    return new Typed.B(
        fold(new BoolExpr.NumCompare(n.op(), pair.left(), pair.right()), isConst(l) && isConst(r)));
  }

  private Typed in(Ast.In n) {
    Typed l = check(n.left());
    List<Typed> items = new ArrayList<>();
    for (Ast item : n.items()) {
      items.add(check(item));
    }
    if (l instanceof Typed.Err) {
      return ERR;
    }
    if (l instanceof Typed.Sym s) {
      problems.add(
          ProblemCode.UNRESOLVED_SYMBOL,
          n.start(),
          notAnInput(s.name())
              + "; the left side of "
              + n.op()
              + " must be an input, e.g. mode.value "
              + n.op()
              + " [heating, cooling]");
      return ERR;
    }
    boolean ok = true;
    boolean constant = isConst(l);
    List<Object> exprs = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Ast itemNode = n.items().get(i);
      Typed item = items.get(i);
      if (item instanceof Typed.Sym s) {
        item = resolve(s, itemNode, l, n.left());
      }
      if (item == null || item instanceof Typed.Err) {
        ok = false;
        continue;
      }
      constant &= isConst(item);
      if (l instanceof Typed.N ln && item instanceof Typed.N in) {
        NumExpr e = toUnitOf(ln, n.left(), in, itemNode, n.opStart());
        ok &= e != null;
        exprs.add(e);
      } else if (l instanceof Typed.B && item instanceof Typed.B ib) {
        exprs.add(ib.e());
      } else if (l instanceof Typed.T lt && item instanceof Typed.T it) {
        ok &= textsMatch(lt, n.left(), it, itemNode, itemNode.start(), "compare", "with element");
        exprs.add(it.e());
      } else if (l instanceof Typed.Q && item instanceof Typed.Q iq) {
        exprs.add(iq.e());
      } else {
        mismatch(n.left(), l, itemNode, item, itemNode.start(), "element ");
        ok = false;
      }
    }
    if (!ok) {
      return ERR;
    }
    BoolExpr result;
    if (l instanceof Typed.N ln) {
      result = new BoolExpr.NumIn(ln.e(), exprs.toArray(NumExpr[]::new), n.negated());
    } else if (l instanceof Typed.B lb) {
      result = new BoolExpr.BoolIn(lb.e(), exprs.toArray(BoolExpr[]::new), n.negated());
    } else if (l instanceof Typed.T lt) {
      result = new BoolExpr.TextIn(lt.e(), exprs.toArray(TextExpr[]::new), n.negated());
    } else {
      result =
          new BoolExpr.QualityIn(((Typed.Q) l).e(), exprs.toArray(QualityExpr[]::new), n.negated());
    }
    return new Typed.B(fold(result, constant));
  }

  /**
   * A bare word beside an enum (one of its values) or a quality (a quality name); anything else is
   * reported. Returns null when reported.
   */
  private Typed resolve(Typed.Sym s, Ast node, Typed other, Ast otherNode) {
    if (other instanceof Typed.T t && t.enumValues() != null) {
      if (t.enumValues().contains(s.name())) {
        return new Typed.T(new TextExpr.Const(s.name()), t.enumValues());
      }
      problems.add(
          ProblemCode.UNKNOWN_ENUM_SYMBOL,
          node.start(),
          "'"
              + s.name()
              + "' is not a value of "
              + text(otherNode)
              + ": its values are "
              + Names.list(t.enumValues())
              + Names.didYouMean(s.name(), t.enumValues()));
      return null;
    }
    if (other instanceof Typed.Q) {
      var quality = Quality.parse(s.name());
      if (quality.isPresent()) {
        return new Typed.Q(new QualityExpr.Const(quality.get()));
      }
      List<String> qualities = Arrays.stream(Quality.values()).map(Quality::wireName).toList();
      problems.add(
          ProblemCode.UNKNOWN_QUALITY,
          node.start(),
          "'"
              + s.name()
              + "' is not a quality: the qualities are "
              + Names.list(qualities)
              + Names.didYouMean(s.name(), qualities));
      return null;
    }
    if (other instanceof Typed.Err) {
      return null;
    }
    String hint;
    if (other instanceof Typed.T) {
      hint = "; " + text(otherNode) + " is text: write text in double quotes, \"" + s.name() + "\"";
    } else if (other instanceof Typed.B) {
      hint = "; " + text(otherNode) + " is true/false: compare it with true or false";
    } else {
      hint = "; " + text(otherNode) + " is " + kind(other);
    }
    problems.add(ProblemCode.UNRESOLVED_SYMBOL, node.start(), notAnInput(s.name()) + hint);
    return null;
  }

  /** Whether two texts may be compared: both enums or both strings. Reports if not. */
  private boolean textsMatch(
      Typed.T l, Ast lNode, Typed.T r, Ast rNode, int at, String verb, String with) {
    if ((l.enumValues() == null) == (r.enumValues() == null)) {
      return true;
    }
    Ast enumNode = l.enumValues() != null ? lNode : rNode;
    Ast textNode = l.enumValues() != null ? rNode : lNode;
    Typed.T enumType = l.enumValues() != null ? l : r;
    String message =
        "cannot "
            + verb
            + " "
            + text(lNode)
            + " ("
            + kind(l)
            + ") "
            + with
            + " "
            + text(rNode)
            + " ("
            + kind(r)
            + ")";
    if (textNode instanceof Ast.Str) {
      String example = enumType.enumValues().isEmpty() ? "value" : enumType.enumValues().get(0);
      message +=
          ": write the values of an enum without quotes, e.g. " + text(enumNode) + " == " + example;
    }
    problems.add(ProblemCode.KIND_MISMATCH, at, message);
    return false;
  }

  private void mismatch(Ast lNode, Typed l, Ast rNode, Typed r, int at, String element) {
    problems.add(
        ProblemCode.KIND_MISMATCH,
        at,
        "cannot compare "
            + text(lNode)
            + " ("
            + kind(l)
            + ") with "
            + element
            + text(rNode)
            + " ("
            + kind(r)
            + "): both sides must be of the same kind");
  }

  /** Reports a non-number where a number is needed ({@code code}), or a bare word there. */
  private void notANumber(Ast node, Typed t, int at, ProblemCode code, String rule) {
    if (t instanceof Typed.Sym s) {
      problems.add(
          ProblemCode.UNRESOLVED_SYMBOL, node.start(), rule + ", but " + notAnInput(s.name()));
    } else {
      problems.add(code, at, rule + ", but " + text(node) + " is " + kind(t));
    }
  }

  // ---- numbers and units -------------------------------------------------------------------

  private record NumPair(NumExpr left, NumExpr right, MeasureUnit unit, boolean bare) {}

  /**
   * Brings two numbers to one unit: a bare number takes the other's unit; otherwise a constant is
   * converted into the other side's unit at compile time, or else the right side into the left's
   * unit at run time. Returns null (reported) for incompatible units.
   */
  private NumPair unify(Typed.N l, Ast lNode, Typed.N r, Ast rNode, String verb, int at) {
    if (l.bare() || r.bare() || l.unit().equals(r.unit())) {
      return new NumPair(l.e(), r.e(), l.bare() ? r.unit() : l.unit(), l.bare() && r.bare());
    }
    if (!l.unit().isCompatible(r.unit())) {
      incompatible(l, lNode, r, rNode, verb, at);
      return null;
    }
    if (l.e() instanceof NumExpr.Const && !(r.e() instanceof NumExpr.Const)) {
      return new NumPair(convert(l.e(), l.unit(), r.unit()), r.e(), r.unit(), false);
    }
    return new NumPair(l.e(), convert(r.e(), r.unit(), l.unit()), l.unit(), false);
  }

  /** A list element in the unit of the left side of in; null (reported) if it cannot be. */
  private NumExpr toUnitOf(Typed.N l, Ast lNode, Typed.N item, Ast itemNode, int at) {
    if (l.bare() || item.bare() || l.unit().equals(item.unit())) {
      return item.e();
    }
    if (!l.unit().isCompatible(item.unit())) {
      incompatible(l, lNode, item, itemNode, "compare element", itemNode.start());
      return null;
    }
    return convert(item.e(), item.unit(), l.unit());
  }

  private void incompatible(Typed.N l, Ast lNode, Typed.N r, Ast rNode, String verb, int at) {
    String left = text(lNode) + " (" + l.unit().describe() + ")";
    String right = text(rNode) + " (" + r.unit().describe() + ")";
    String what =
        switch (verb) {
          case "add" -> "add " + right + " to " + left;
          case "subtract" -> "subtract " + right + " from " + left;
          case "compare element" -> "compare " + left + " with list element " + right;
          default -> "compare " + left + " with " + right;
        };
    String why;
    if (l.unit().isNone() || r.unit().isNone()) {
      Typed.N none = l.unit().isNone() ? l : r;
      Typed.N unit = l.unit().isNone() ? r : l;
      why =
          (none == l ? text(lNode) : text(rNode))
              + " has no unit, so it cannot meet a number in "
              + unit.unit().symbol()
              + "; write the number without a unit";
    } else {
      why = "the units " + l.unit().symbol() + " and " + r.unit().symbol() + " are incompatible";
      MeasureUnit minute = MeasureUnit.parse("min").orElseThrow();
      if (l.unit().symbol().equals("m") && r.unit().isCompatible(minute)
          || r.unit().symbol().equals("m") && l.unit().isCompatible(minute)) {
        why += " (m is metre: write min for minutes)";
      }
    }
    problems.add(ProblemCode.INCOMPATIBLE_UNITS, at, "cannot " + what + ": " + why);
  }

  /** {@code e}, in unit {@code from}, converted into {@code to}; constants are converted now. */
  static NumExpr convert(NumExpr e, MeasureUnit from, MeasureUnit to) {
    DoubleUnaryOperator f = from.converterTo(to);
    if (e instanceof NumExpr.Const c) {
      return new NumExpr.Const(roundConverted(f.applyAsDouble(c.value())));
    }
    double offset = f.applyAsDouble(0);
    double scale;
    if (offset == 0) {
      scale = f.applyAsDouble(1);
    } else {
      double span = 1 << 20; // large, so that the offset's rounding does not blur the scale
      scale = (f.applyAsDouble(span) - offset) / span;
      if (Math.abs(scale - Math.rint(scale)) < 1e-12) {
        scale = Math.rint(scale);
      }
    }
    double probe = 123.456;
    double expected = f.applyAsDouble(probe);
    if (Math.abs(probe * scale + offset - expected) <= 1e-9 * Math.max(1, Math.abs(expected))) {
      return new NumExpr.Affine(e, scale, offset);
    }
    return new NumExpr.Converted(e, f);
  }

  /**
   * A converted constant, rounded to 12 significant digits: removes the floating-point noise of the
   * conversion (212 degF is 100 degC, not 100.00000000000003), far below any sensor's resolution.
   */
  static double roundConverted(double v) {
    if (!Double.isFinite(v) || v == 0) {
      return v;
    }
    return new BigDecimal(v).round(new MathContext(12, RoundingMode.HALF_EVEN)).doubleValue();
  }

  private Typed arith(Ast.Arith n) {
    Typed l = check(n.left());
    Typed r = check(n.right());
    if (l instanceof Typed.Err || r instanceof Typed.Err) {
      return ERR;
    }
    String rule = "'" + n.op() + "' works on numbers only";
    if (!(l instanceof Typed.N)) {
      notANumber(n.left(), l, n.opStart(), ProblemCode.NOT_A_NUMBER, rule);
      return ERR;
    }
    if (!(r instanceof Typed.N)) {
      notANumber(n.right(), r, n.opStart(), ProblemCode.NOT_A_NUMBER, rule);
      return ERR;
    }
    Typed.N ln = (Typed.N) l;
    Typed.N rn = (Typed.N) r;
    boolean constant = isConst(l) && isConst(r);
    if (n.op() == '+' || n.op() == '-') {
      NumPair pair =
          unify(ln, n.left(), rn, n.right(), n.op() == '+' ? "add" : "subtract", n.opStart());
      if (pair == null) {
        return ERR;
      }
      NumExpr e =
          n.op() == '+'
              ? new NumExpr.Add(pair.left(), pair.right())
              : new NumExpr.Sub(pair.left(), pair.right());
      return new Typed.N(fold(e, constant), pair.unit(), pair.bare());
    }
    boolean multiply = n.op() == '*';
    if (!ln.unit().isNone() && !rn.unit().isNone()) {
      problems.add(
          ProblemCode.UNIT_TIMES_UNIT,
          n.opStart(),
          "cannot "
              + (multiply ? "multiply " : "divide ")
              + text(n.left())
              + " ("
              + ln.unit().symbol()
              + ") by "
              + text(n.right())
              + " ("
              + rn.unit().symbol()
              + "): one side of "
              + n.op()
              + " must be a number without unit");
      return ERR;
    }
    if (!multiply && rn.e() instanceof NumExpr.Const c && c.value() == 0) {
      problems.add(
          ProblemCode.DIVISION_BY_ZERO,
          n.right().start(),
          "division by zero: " + text(n) + " divides by " + text(n.right()) + ", which is 0");
      return ERR;
    }
    MeasureUnit unit = ln.unit().isNone() ? rn.unit() : ln.unit();
    NumExpr e = multiply ? new NumExpr.Mul(ln.e(), rn.e()) : new NumExpr.Div(ln.e(), rn.e());
    return new Typed.N(fold(e, constant), unit, ln.bare() && rn.bare());
  }

  private Typed neg(Ast.Neg n) {
    Typed t = check(n.operand());
    if (t instanceof Typed.Err) {
      return ERR;
    }
    if (!(t instanceof Typed.N num)) {
      notANumber(n.operand(), t, n.start(), ProblemCode.NOT_A_NUMBER, "'-' works on numbers only");
      return ERR;
    }
    return new Typed.N(fold(new NumExpr.Neg(num.e()), isConst(t)), num.unit(), num.bare());
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static boolean isConst(Typed t) {
    if (t instanceof Typed.N n) {
      return n.e() instanceof NumExpr.Const;
    } else if (t instanceof Typed.B b) {
      return b.e() instanceof BoolExpr.Const;
    } else if (t instanceof Typed.T x) {
      return x.e() instanceof TextExpr.Const;
    } else if (t instanceof Typed.Q q) {
      return q.e() instanceof QualityExpr.Const;
    }
    return false;
  }

  private static BoolExpr fold(BoolExpr e, boolean constant) {
    return constant ? new BoolExpr.Const(e.test(NO_INPUTS)) : e;
  }

  private static NumExpr fold(NumExpr e, boolean constant) {
    return constant ? new NumExpr.Const(e.eval(NO_INPUTS)) : e;
  }

  /** What a message calls a type. */
  private static String kind(Typed t) {
    if (t instanceof Typed.B) {
      return "true/false";
    } else if (t instanceof Typed.N n) {
      return n.unit().isNone() ? "a number without unit" : "a number in " + n.unit().symbol();
    } else if (t instanceof Typed.T x) {
      return x.enumValues() == null ? "text" : "an enum of " + Names.list(x.enumValues());
    } else if (t instanceof Typed.Q) {
      return "a quality";
    } else if (t instanceof Typed.Sym s) {
      return "the bare name '" + s.name() + "'";
    }
    return "invalid";
  }

  /** The source of a node, on one line and not too long, for messages. */
  private String text(Ast node) {
    String s = source.substring(node.start(), Math.min(node.end(), source.length()));
    s = s.strip().replaceAll("\\s+", " ");
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }
}
