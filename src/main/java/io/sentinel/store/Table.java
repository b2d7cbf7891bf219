package io.sentinel.store;

import java.util.List;
import java.util.Optional;

/**
 * A journal table: its columns with their PostgreSQL types, and how a re-sent row is treated. Rows
 * travel as text (the local journal keeps them as text too) and are cast once, in the INSERT.
 */
enum Table {
  OBSERVATIONS(
      "observations",
      List.of(
          "seq:bigint",
          "point_id:text",
          "value:jsonb",
          "value_num:float8",
          "quality:text",
          "source:text",
          "observed_at:timestamptz",
          "received_at:timestamptz"),
      Optional.empty()),
  CLAIM_CHANGES(
      "claim_changes",
      List.of(
          "seq:bigint",
          "at:timestamptz",
          "rule_id:text",
          "point_id:text",
          "band:text",
          "value:jsonb",
          "reason:text"),
      Optional.empty()),
  DECISIONS(
      "decisions",
      List.of(
          "seq:bigint",
          "at:timestamptz",
          "point_id:text",
          "kind:text",
          "value:jsonb",
          "rule_id:text",
          "band:text",
          "deciding_key:text",
          "contenders:jsonb"),
      Optional.empty()),
  ACTIONS(
      "actions",
      List.of(
          "seq:bigint",
          "at:timestamptz",
          "action_id:text",
          "rule_id:text",
          "kind:text",
          "fields:jsonb"),
      Optional.empty()),
  FIRINGS(
      "firings",
      List.of("seq:bigint", "at:timestamptz", "firing_id:text", "point_id:text"),
      Optional.empty()),
  CONTROL_EVENTS(
      "control_events",
      List.of("seq:bigint", "at:timestamptz", "kind:text", "subject:text", "message:text"),
      Optional.empty()),
  SELF_POINTS(
      "self_points",
      List.of("name:text", "value:jsonb", "at:timestamptz", "seq:bigint"),
      Optional.of("name")),
  COMMANDS(
      "commands",
      List.of(
          "command_id:text",
          "seq:bigint",
          "point_id:text",
          "kind:text",
          "value:jsonb",
          "band:text",
          "rule_id:text",
          "issued_at:timestamptz",
          "state:text",
          "state_at:timestamptz"),
      Optional.of("command_id")),
  COMMAND_STATES(
      "command_states",
      List.of("seq:bigint", "command_id:text", "state:text", "at:timestamptz", "detail:text"),
      Optional.empty()),
  POINT_VALUES(
      "point_values",
      List.of("point_id:text", "value:jsonb", "quality:text", "since:timestamptz", "seq:bigint"),
      Optional.of("point_id")),
  ACTION_COOLDOWNS(
      "action_cooldowns",
      List.of(
          "rule_id:text",
          "action_index:int",
          "last_fired_at:timestamptz",
          "action_id:text",
          "seq:bigint"),
      Optional.of("rule_id, action_index")),
  DERIVED_SNAPSHOTS(
      "derived_snapshots",
      List.of(
          "seq:bigint",
          "taken_at:timestamptz",
          "revision:bigint",
          "snapshot:jsonb",
          "latches:jsonb",
          "overrides:jsonb"),
      Optional.empty()),
  AUDIT_LOG(
      "audit_log",
      List.of(
          "seq:bigint",
          "event_id:text",
          "kind:text",
          "rule_id:text",
          "revision:bigint",
          "matched_inputs:jsonb",
          "resolved_outputs:jsonb",
          "band:text",
          "priority:int",
          "deciding_key:text",
          "contenders:jsonb",
          "device_id:text",
          "zone:text",
          "cycle:bigint",
          "ts:text",
          "at:timestamptz",
          "reason:text",
          "detail:jsonb",
          "previous_hash:text",
          "hash:text"),
      Optional.empty()),
  // Last: a record's rows name their table by ordinal, so a new table never renumbers the others.
  INGEST_ACKNOWLEDGED(
      "ingest_acknowledged",
      List.of("source:text", "through:bigint", "at:timestamptz", "seq:bigint"),
      Optional.of("source"));

  final String name;
  final List<String> columns;
  final List<String> types;

  /** The key of a table that keeps one row per key (the newest by seq); empty for a log table. */
  final Optional<String> upsertKey;

  /** The positions of the upsert key's columns (none for a log table). */
  final int[] keyColumns;

  final String insert;

  Table(String name, List<String> columns, Optional<String> upsertKey) {
    this.name = name;
    this.columns = columns.stream().map(c -> c.substring(0, c.indexOf(':'))).toList();
    this.types = columns.stream().map(c -> c.substring(c.indexOf(':') + 1)).toList();
    this.upsertKey = upsertKey;
    this.keyColumns =
        upsertKey.stream()
            .flatMap(k -> java.util.Arrays.stream(k.split(",\\s*")))
            .mapToInt(this::column)
            .toArray();
    this.insert = insertSql();
  }

  int column(String name) {
    int i = columns.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException(this.name + " has no column " + name);
    }
    return i;
  }

  static Optional<Table> named(String name) {
    for (Table t : values()) {
      if (t.name.equals(name)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** One statement per batch: every column as a text array, unnested and cast. */
  private String insertSql() {
    StringBuilder b = new StringBuilder("INSERT INTO ").append(name).append(" (");
    b.append(String.join(", ", columns)).append(") SELECT ");
    for (int i = 0; i < columns.size(); i++) {
      b.append(i == 0 ? "" : ", ").append("u.c").append(i).append("::").append(types.get(i));
    }
    b.append(" FROM unnest(");
    for (int i = 0; i < columns.size(); i++) {
      b.append(i == 0 ? "" : ", ").append('$').append(i + 1).append("::text[]");
    }
    b.append(") AS u(");
    for (int i = 0; i < columns.size(); i++) {
      b.append(i == 0 ? "" : ", ").append('c').append(i);
    }
    b.append(")");
    if (upsertKey.isEmpty()) {
      b.append(" ON CONFLICT DO NOTHING");
    } else {
      b.append(" ON CONFLICT (").append(upsertKey.get()).append(") DO UPDATE SET ");
      List<String> keys = List.of(upsertKey.get().split(",\\s*"));
      List<String> sets =
          columns.stream().filter(c -> !keys.contains(c)).map(c -> c + " = EXCLUDED." + c).toList();
      b.append(String.join(", ", sets));
      b.append(" WHERE ").append(name).append(".seq <= EXCLUDED.seq");
    }
    return b.toString();
  }
}
