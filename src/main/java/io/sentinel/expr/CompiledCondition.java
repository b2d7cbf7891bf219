package io.sentinel.expr;

import java.util.Set;

/** The {@link Condition} the compiler returns: a checked tree, evaluated as is. */
record CompiledCondition(BoolExpr root, Set<String> inputsRead, String source)
    implements Condition {
  CompiledCondition {
    inputsRead = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(inputsRead));
  }

  @Override
  public boolean test(Inputs inputs) {
    return root.test(inputs);
  }

  @Override
  public String toString() {
    return source;
  }
}
