package io.sentinel.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.audit.AuditRecord;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ActionId;
import io.sentinel.engine.ClaimChange;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.PassResult;
import io.sentinel.engine.SelfPoint;
import io.sentinel.passlog.Observation;
import io.sentinel.passlog.PassRecord;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.wire.PassLogJson;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The rows of the core's values: the one place that knows which column holds what. */
final class Rows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Rows() {}

  /** How many journal sequence numbers a pass takes (one per log row). */
  static int seqsOf(PassRecord p) {
    PassResult r = p.result();
    return p.observations().size()
        + r.claimChanges().size()
        + r.decisions().size()
        + r.actions().size()
        + r.events().size()
        + r.firings().size();
  }

  /** A pass's rows, numbered from {@code firstSeq} in the order the pass produced them. */
  static List<Row> of(PassRecord p, long firstSeq) {
    List<Row> out = new ArrayList<>();
    long seq = firstSeq;
    for (Observation o : p.observations()) {
      out.add(observation(seq++, o));
    }
    PassResult r = p.result();
    for (ClaimChange c : r.claimChanges()) {
      out.add(
          row(
              Table.CLAIM_CHANGES,
              seq++,
              text(c.at()),
              c.ruleId(),
              c.pointId(),
              c.band().wireName(),
              c.value().map(Rows::json).orElse(null),
              c.reason()));
    }
    for (Decision d : r.decisions()) {
      out.add(decision(seq++, p.now(), d));
    }
    for (ActionFired a : r.actions()) {
      long s = seq++;
      out.add(
          row(
              Table.ACTIONS,
              s,
              text(a.at()),
              a.id(),
              a.ruleId(),
              a.kind(),
              write(new java.util.TreeMap<>(a.fields()))));
      out.add(
          row(
              Table.ACTION_COOLDOWNS,
              s,
              a.ruleId(),
              Integer.toString(ActionId.parse(a.id()).map(ActionId::index).orElse(0)),
              text(a.at()),
              a.id()));
    }
    for (ControlEvent e : r.events()) {
      out.add(event(seq++, e));
    }
    for (io.sentinel.derived.Firing f : r.firings()) {
      out.add(row(Table.FIRINGS, seq++, text(f.at()), f.id(), f.pointId()));
    }
    long last = seq - 1;
    for (SelfPoint sp : r.selfPoints()) {
      out.add(selfPoint(last, sp));
    }
    for (Transition t : r.transitions()) {
      if (t.current().value().isPresent()) {
        out.add(
            row(
                Table.POINT_VALUES,
                last,
                t.pointId(),
                json(t.current().value()),
                t.current().quality().wireName(),
                text(t.current().since())));
      }
    }
    return out;
  }

  static Row observation(long seq, Observation o) {
    return row(
        Table.OBSERVATIONS,
        seq,
        o.pointId(),
        json(o.value()),
        o.value() instanceof Value.Num n ? Double.toString(n.value()) : null,
        o.quality().wireName(),
        o.source(),
        o.observedAt().map(Rows::text).orElse(null),
        text(o.receivedAt()));
  }

  static Row decision(long seq, Instant at, Decision d) {
    return row(
        Table.DECISIONS,
        seq,
        text(at),
        d.pointId(),
        d.winner().isPresent() ? "assert" : "release",
        json(d.value().orElse(Value.ABSENT)),
        d.winner().map(Claim::ruleId).orElse(null),
        d.winner().map(w -> w.band().wireName()).orElse(null),
        d.decidingKey(),
        write(io.sentinel.audit.AuditTrail.contenders(d)));
  }

  static Row event(long seq, ControlEvent e) {
    return row(Table.CONTROL_EVENTS, seq, text(e.at()), e.kind(), e.subject(), e.message());
  }

  static Row selfPoint(long seq, SelfPoint sp) {
    // The key column comes first in this table; seq is its last column.
    return new Row(
        Table.SELF_POINTS,
        seq,
        Arrays.asList(sp.name(), json(sp.value()), text(sp.at()), "" + seq));
  }

  static Row derivedSnapshot(
      long seq,
      Instant at,
      long revision,
      String snapshot,
      java.util.Set<String> latches,
      java.util.Collection<OperatorOverride> overrides) {
    com.fasterxml.jackson.databind.node.ArrayNode kept = JSON.createArrayNode();
    overrides.stream()
        .sorted(java.util.Comparator.comparing(OperatorOverride::pointId))
        .forEach(
            o ->
                kept.addObject()
                    .put("point", o.pointId())
                    .<com.fasterxml.jackson.databind.node.ObjectNode>set(
                        "value", PassLogJson.valueNode(o.value()))
                    .put("until", text(o.until()))
                    .put("by", o.by())
                    .put("reason", o.reason()));
    return row(
        Table.DERIVED_SNAPSHOTS,
        seq,
        text(at),
        Long.toString(revision),
        snapshot,
        write(new java.util.TreeSet<>(latches)),
        kept.toString());
  }

  static Row audit(AuditRecord a) {
    var e = a.entry();
    return row(
        Table.AUDIT_LOG,
        a.seq(),
        e.eventId(),
        e.kind(),
        e.ruleId(),
        Long.toString(e.revision()),
        write(e.matchedInputs()),
        write(e.resolvedOutputs()),
        e.band(),
        Integer.toString(e.priority()),
        e.decidingKey(),
        write(e.contenders()),
        e.deviceId(),
        e.zone(),
        Long.toString(e.cycle()),
        e.ts().toString(),
        text(e.ts()),
        e.reason(),
        write(e.detail()),
        a.previousHash(),
        a.hash());
  }

  /** A command the command plane issued ({@code commands}), and its first state. */
  static List<Row> command(
      long seq,
      String commandId,
      String pointId,
      String kind,
      Value value,
      String band,
      String ruleId,
      Instant issuedAt,
      String state) {
    Row row =
        new Row(
            Table.COMMANDS,
            seq,
            Arrays.asList(
                commandId,
                Long.toString(seq),
                pointId,
                kind,
                json(value),
                band,
                ruleId,
                text(issuedAt),
                state,
                text(issuedAt)));
    Row history = row(Table.COMMAND_STATES, seq, commandId, state, text(issuedAt), "");
    return List.of(row, history);
  }

  /**
   * A row whose first column is {@code seq} (log tables), or whose key columns come first and
   * {@code seq} last (the tables of latest values).
   */
  static Row row(Table table, long seq, String... rest) {
    String[] values = new String[rest.length + 1];
    boolean seqFirst = table.columns.get(0).equals("seq");
    System.arraycopy(rest, 0, values, seqFirst ? 1 : 0, rest.length);
    values[seqFirst ? 0 : rest.length] = Long.toString(seq);
    return new Row(table, seq, Arrays.asList(values));
  }

  static String json(Value v) {
    return PassLogJson.valueJson(v);
  }

  static String text(Instant t) {
    return InstantText.of(t);
  }

  static String write(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON-able: " + o, e);
    }
  }
}
