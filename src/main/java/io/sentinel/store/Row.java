package io.sentinel.store;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One row bound for a journal table, every value as the text PostgreSQL casts it from (null for SQL
 * NULL). {@code seq} is the journal's sequence: the order of the log.
 */
record Row(Table table, long seq, List<String> values) {
  Row {
    if (values.size() != table.columns.size()) {
      throw new IllegalArgumentException(
          table.name + " takes " + table.columns.size() + " values, not " + values.size());
    }
    // One copy (nulls allowed, so not List.copyOf): the journal makes several rows a sample.
    values = Collections.unmodifiableList(Arrays.asList(values.toArray(String[]::new)));
  }

  String value(String column) {
    return values.get(table.column(column));
  }

  /** The upsert key's values, for keeping only the newest row per key in one batch. */
  String key() {
    int[] columns = table.keyColumns;
    if (columns.length == 0) {
      throw new IllegalStateException(table.name + " keeps every row: it has no upsert key");
    }
    StringBuilder b = new StringBuilder();
    for (int c : columns) {
      b.append(values.get(c)).append('\u0000');
    }
    return b.toString();
  }
}
