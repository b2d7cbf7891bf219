package io.sentinel.expr;

import io.sentinel.point.MeasureUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The unit symbols of {@link MeasureUnit}, in a stable order for messages. */
final class UnitCatalogue {
  private UnitCatalogue() {}

  private static final List<String> SYMBOLS =
      MeasureUnit.symbols().stream()
          .sorted(
              Comparator.comparing((String s) -> s.toLowerCase(Locale.ROOT))
                  .thenComparing(Comparator.naturalOrder()))
          .toList();

  static List<String> symbols() {
    return SYMBOLS;
  }
}
