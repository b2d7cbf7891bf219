package io.sentinel.expr;

import io.sentinel.point.Quality;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The comparisons of the checker: ==, !=, ordering and in, and bare words they resolve. */
final class ComparisonChecker {
  private final Checker c;

  ComparisonChecker(Checker c) {
    this.c = c;
  }

  Typed equality(Ast.Compare n) {
    Typed l = c.check(n.left());
    Typed r = c.check(n.right());
    if (l instanceof Typed.Err || r instanceof Typed.Err) {
      return Typed.ERR;
    }
    if (l instanceof Typed.Sym ls && r instanceof Typed.Sym) {
      c.problems.add(
          ProblemCode.UNRESOLVED_SYMBOL,
          n.start(),
          "neither '"
              + c.text(n.left())
              + "' nor '"
              + c.text(n.right())
              + "' is a declared input: one side of "
              + n.op().symbol()
              + " must be an input, e.g. mode.value "
              + n.op().symbol()
              + " "
              + ls.name());
      return Typed.ERR;
    }
    if (l instanceof Typed.Sym ls) {
      l = resolve(ls, n.left(), r, n.right());
    } else if (r instanceof Typed.Sym rs) {
      r = resolve(rs, n.right(), l, n.left());
    }
    if (l == null || r == null) {
      return Typed.ERR;
    }
    boolean equal = n.op() == CmpOp.EQ;
    BoolExpr result;
    if (l instanceof Typed.N ln && r instanceof Typed.N rn) {
      NumberChecker.NumPair pair =
          c.numbers.unify(ln, n.left(), rn, n.right(), "compare", n.opStart());
      if (pair == null) {
        return Typed.ERR;
      }
      result = new BoolExpr.NumCompare(n.op(), pair.left(), pair.right());
    } else if (l instanceof Typed.B lb && r instanceof Typed.B rb) {
      result = new BoolExpr.BoolCompare(equal, lb.e(), rb.e());
    } else if (l instanceof Typed.T lt && r instanceof Typed.T rt) {
      if (!textsMatch(lt, n.left(), rt, n.right(), n.opStart(), "compare", "with")) {
        return Typed.ERR;
      }
      result = new BoolExpr.TextCompare(equal, lt.e(), rt.e());
    } else if (l instanceof Typed.Q lq && r instanceof Typed.Q rq) {
      result = new BoolExpr.QualityCompare(equal, lq.e(), rq.e());
    } else {
      mismatch(n.left(), l, n.right(), r, n.opStart(), "");
      return Typed.ERR;
    }
    return new Typed.B(Checker.fold(result, Checker.isConst(l) && Checker.isConst(r)));
  }

  Typed ordering(Ast.Compare n) {
    Typed l = c.check(n.left());
    Typed r = c.check(n.right());
    if (l instanceof Typed.Err || r instanceof Typed.Err) {
      return Typed.ERR;
    }
    if (!(l instanceof Typed.N)) {
      notANumber(
          n.left(),
          l,
          n.opStart(),
          ProblemCode.NOT_ORDERED,
          "'" + n.op().symbol() + "' compares numbers only");
      return Typed.ERR;
    }
    if (!(r instanceof Typed.N)) {
      notANumber(
          n.right(),
          r,
          n.opStart(),
          ProblemCode.NOT_ORDERED,
          "'" + n.op().symbol() + "' compares numbers only");
      return Typed.ERR;
    }
    NumberChecker.NumPair pair =
        c.numbers.unify((Typed.N) l, n.left(), (Typed.N) r, n.right(), "compare", n.opStart());
    if (pair == null) {
      return Typed.ERR;
    }
    return new Typed.B(
        Checker.fold(
            new BoolExpr.NumCompare(n.op(), pair.left(), pair.right()),
            Checker.isConst(l) && Checker.isConst(r)));
  }

  Typed in(Ast.In n) {
    Typed l = c.check(n.left());
    List<Typed> items = new ArrayList<>();
    for (Ast item : n.items()) {
      items.add(c.check(item));
    }
    if (l instanceof Typed.Err) {
      return Typed.ERR;
    }
    if (l instanceof Typed.Sym s) {
      c.problems.add(
          ProblemCode.UNRESOLVED_SYMBOL,
          n.start(),
          c.notAnInput(s.name())
              + "; the left side of "
              + n.op()
              + " must be an input, e.g. mode.value "
              + n.op()
              + " [heating, cooling]");
      return Typed.ERR;
    }
    boolean ok = true;
    boolean constant = Checker.isConst(l);
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
      constant &= Checker.isConst(item);
      if (l instanceof Typed.N ln && item instanceof Typed.N in) {
        NumExpr e = c.numbers.toUnitOf(ln, n.left(), in, itemNode, n.opStart());
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
      return Typed.ERR;
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
    return new Typed.B(Checker.fold(result, constant));
  }

  /**
   * A bare word beside an enum (one of its values) or a quality (a quality name); anything else is
   * reported. Returns null when reported.
   */
  Typed resolve(Typed.Sym s, Ast node, Typed other, Ast otherNode) {
    if (other instanceof Typed.T t && t.enumValues() != null) {
      if (t.enumValues().contains(s.name())) {
        return new Typed.T(new TextExpr.Const(s.name()), t.enumValues());
      }
      c.problems.add(
          ProblemCode.UNKNOWN_ENUM_SYMBOL,
          node.start(),
          "'"
              + s.name()
              + "' is not a value of "
              + c.text(otherNode)
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
      c.problems.add(
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
      hint =
          "; " + c.text(otherNode) + " is text: write text in double quotes, \"" + s.name() + "\"";
    } else if (other instanceof Typed.B) {
      hint = "; " + c.text(otherNode) + " is true/false: compare it with true or false";
    } else {
      hint = "; " + c.text(otherNode) + " is " + Checker.kind(other);
    }
    c.problems.add(ProblemCode.UNRESOLVED_SYMBOL, node.start(), c.notAnInput(s.name()) + hint);
    return null;
  }

  /** Whether two texts may be compared: both enums or both strings. Reports if not. */
  boolean textsMatch(Typed.T l, Ast lNode, Typed.T r, Ast rNode, int at, String verb, String with) {
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
            + c.text(lNode)
            + " ("
            + Checker.kind(l)
            + ") "
            + with
            + " "
            + c.text(rNode)
            + " ("
            + Checker.kind(r)
            + ")";
    if (textNode instanceof Ast.Str) {
      String example = enumType.enumValues().isEmpty() ? "value" : enumType.enumValues().get(0);
      message +=
          ": write the values of an enum without quotes, e.g. "
              + c.text(enumNode)
              + " == "
              + example;
    }
    c.problems.add(ProblemCode.KIND_MISMATCH, at, message);
    return false;
  }

  void mismatch(Ast lNode, Typed l, Ast rNode, Typed r, int at, String element) {
    c.problems.add(
        ProblemCode.KIND_MISMATCH,
        at,
        "cannot compare "
            + c.text(lNode)
            + " ("
            + Checker.kind(l)
            + ") with "
            + element
            + c.text(rNode)
            + " ("
            + Checker.kind(r)
            + "): both sides must be of the same kind");
  }

  /** Reports a non-number where a number is needed ({@code code}), or a bare word there. */
  void notANumber(Ast node, Typed t, int at, ProblemCode code, String rule) {
    if (t instanceof Typed.Sym s) {
      c.problems.add(
          ProblemCode.UNRESOLVED_SYMBOL, node.start(), rule + ", but " + c.notAnInput(s.name()));
    } else {
      c.problems.add(code, at, rule + ", but " + c.text(node) + " is " + Checker.kind(t));
    }
  }
}
