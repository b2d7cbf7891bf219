package io.sentinel.passlog;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.command.Command;
import io.sentinel.command.CommandPlane;
import io.sentinel.engine.Engine;
import io.sentinel.point.PointState;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import io.sentinel.rule.Rule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why an output is in its state (issue 16, "why"; docs/api.md): the one definition the HTTP API,
 * {@code sentinel why} and the operator page all show. The decided value, the winning rule with its
 * band and priority, its inputs' values and qualities in the pass that decided, the deciding key,
 * every contender, and the last command with its delivery state. Built from the running engine
 * ({@link #of}) or, for a past instant, from the log ({@code store.Explanations}).
 *
 * @param at the instant explained (the engine's clock, or the instant asked about)
 * @param source {@code engine} (live) or {@code log}
 * @param decidedAt when the decision that stands was taken, where the log says so
 * @param value the decided value; empty when no claim holds and the point has no release_value
 * @param inputsAt when the inputs had the values shown (the pass of the rule's last audit entry)
 */
public record Explanation(
    String pointId,
    Instant at,
    String source,
    Optional<Instant> decidedAt,
    Optional<Value> value,
    Optional<String> rule,
    Optional<Band> band,
    Optional<Integer> priority,
    List<Input> inputs,
    Optional<Instant> inputsAt,
    String decidingKey,
    List<Contender> contenders,
    Optional<CommandState> command) {

  public Explanation {
    inputs = List.copyOf(inputs);
    contenders = List.copyOf(contenders);
  }

  /** One input of the winning rule: its name in the rule, its point, its value and quality. */
  public record Input(String name, String pointId, Optional<Value> value, String quality) {}

  /** A claim on the point, in arbitration order. */
  public record Contender(String rule, Band band, int priority, Value value) {}

  /**
   * The last command the point was sent and where its delivery stands: {@code delivered}, {@code
   * sent} (handed to the driver, not confirmed), {@code failed}, ... as the command plane or the
   * log's {@code command_states} say; {@code waiting} a newer value not yet handed over.
   */
  public record CommandState(
      String commandId,
      String kind,
      Value value,
      Instant issuedAt,
      String state,
      Optional<Instant> stateAt,
      Optional<Value> waiting) {}

  /** The running engine's explanation of {@code pointId}, with the command plane's state. */
  public static Explanation of(
      Engine engine, String pointId, Optional<CommandPlane.PointCommands> commands) {
    Decision d = engine.decision(pointId);
    Optional<Rule> rule = d.winner().flatMap(w -> engine.ruleSet().rule(w.ruleId()));
    List<Input> inputs = new ArrayList<>();
    rule.ifPresent(
        r -> {
          for (Map.Entry<String, String> in : r.inputs().entrySet()) {
            Optional<PointState> s = engine.points().state(in.getValue());
            inputs.add(
                new Input(
                    in.getKey(),
                    in.getValue(),
                    s.map(PointState::value).filter(Value::isPresent),
                    s.map(st -> st.quality().wireName()).orElse("unknown")));
          }
        });
    return new Explanation(
        pointId,
        engine.clock(),
        "engine",
        Optional.empty(),
        d.value(),
        d.winner().map(Claim::ruleId),
        d.winner().map(Claim::band),
        d.winner().map(Claim::priority),
        inputs,
        rule.map(r -> engine.clock()),
        d.decidingKey(),
        d.contenders().stream()
            .map(c -> new Contender(c.ruleId(), c.band(), c.priority(), c.value()))
            .toList(),
        commands.flatMap(Explanation::commandState));
  }

  private static Optional<CommandState> commandState(CommandPlane.PointCommands p) {
    return p.lastCommand()
        .map(
            (Command c) ->
                new CommandState(
                    c.commandId(),
                    c.kind().wireName(),
                    c.value(),
                    c.at(),
                    p.interlockUnenforced() ? "unenforced" : p.delivered() ? "delivered" : "sent",
                    Optional.empty(),
                    p.waiting()));
  }

  /** The explanation as {@code sentinel why} prints it, a line each. */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    out.add(
        pointId
            + " = "
            + value.map(Value::toString).orElse("(no value)")
            + "  at "
            + at
            + " ("
            + source
            + decidedAt.map(t -> ", decided " + t).orElse("")
            + ")");
    out.add(
        "  rule     "
            + rule.map(
                    r ->
                        r
                            + " ("
                            + band.map(Band::wireName).orElse("")
                            + ", priority "
                            + priority.orElse(0)
                            + ")")
                .orElse("none: no claim holds (released)"));
    for (Input i : inputs) {
      out.add(
          "  input    "
              + i.name()
              + " = "
              + i.pointId()
              + " "
              + i.value().map(Value::toString).orElse("(no value)")
              + " "
              + i.quality()
              + inputsAt.map(t -> "  (at " + t + ")").orElse(""));
    }
    out.add("  key      " + (decidingKey.isEmpty() ? "(single claim)" : decidingKey));
    for (Contender c : contenders) {
      out.add(
          "  claim    "
              + c.rule()
              + " ("
              + c.band().wireName()
              + ", priority "
              + c.priority()
              + ") := "
              + c.value());
    }
    out.add(
        "  command  "
            + command
                .map(
                    c ->
                        c.kind()
                            + " "
                            + c.value()
                            + " "
                            + c.commandId()
                            + " issued "
                            + c.issuedAt()
                            + ": "
                            + c.state()
                            + c.stateAt().map(t -> " at " + t).orElse("")
                            + c.waiting().map(w -> ", waiting: " + w).orElse(""))
                .orElse("none sent"));
    return out;
  }
}
