package io.sentinel.expr;

import io.sentinel.point.MeasureUnit;
import io.sentinel.point.PointSpec;
import io.sentinel.point.PointType;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the untyped tree into the typed one, reporting every type and unit problem. A node that
 * failed becomes {@link Typed.Err}, about which nothing more is reported, so that one mistake gives
 * one problem.
 */
final class Checker {
  /** Constants never read an input; anything else reading these is a bug. */
  static final Inputs NO_INPUTS =
      slot -> {
        throw new IllegalStateException("a constant read input slot " + slot);
      };

  final String source;

  final List<String> names;

  final List<PointSpec> specs;

  private final Map<String, Integer> slots = new HashMap<>();

  final boolean[] read;

  final Problems problems;
  final ComparisonChecker comparisons = new ComparisonChecker(this);
  final NumberChecker numbers = new NumberChecker(this);

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

  Typed check(Ast node) {
    if (node instanceof Ast.Logic n) {
      return logic(n);
    } else if (node instanceof Ast.Not n) {
      return not(n);
    } else if (node instanceof Ast.Compare n) {
      return n.op().isEquality() ? comparisons.equality(n) : comparisons.ordering(n);
    } else if (node instanceof Ast.In n) {
      return comparisons.in(n);
    } else if (node instanceof Ast.Arith n) {
      return numbers.arith(n);
    } else if (node instanceof Ast.Neg n) {
      return numbers.neg(n);
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
      return Typed.ERR; // Ast.Bad: already reported
    }
  }

  Typed ref(Ast.Ref n) {
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
      return Typed.ERR;
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

  Typed sym(Ast.Sym n) {
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
      return Typed.ERR;
    }
    return new Typed.Sym(n.name());
  }

  /** The message part about a bare word that is not an input. */
  String notAnInput(String word) {
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

  /** {@code t} as a condition, or null (reported) if it is not one. */
  BoolExpr condition(Ast node, Typed t, String what) {
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

  static String example(String text, Typed t) {
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

  Typed logic(Ast.Logic n) {
    String what = "each side of " + n.op();
    BoolExpr l = condition(n.left(), check(n.left()), what);
    BoolExpr r = condition(n.right(), check(n.right()), what);
    if (l == null || r == null) {
      return Typed.ERR;
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

  Typed not(Ast.Not n) {
    BoolExpr operand = condition(n.operand(), check(n.operand()), "the operand of not");
    if (operand == null) {
      return Typed.ERR;
    }
    return new Typed.B(
        operand instanceof BoolExpr.Const c
            ? new BoolExpr.Const(!c.value())
            : new BoolExpr.Not(operand));
  }

  static boolean isConst(Typed t) {
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

  static BoolExpr fold(BoolExpr e, boolean constant) {
    return constant ? new BoolExpr.Const(e.test(NO_INPUTS)) : e;
  }

  static NumExpr fold(NumExpr e, boolean constant) {
    return constant ? new NumExpr.Const(e.eval(NO_INPUTS)) : e;
  }

  /** What a message calls a type. */
  static String kind(Typed t) {
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
  String text(Ast node) {
    String s = source.substring(node.start(), Math.min(node.end(), source.length()));
    s = s.strip().replaceAll("\\s+", " ");
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }
}
