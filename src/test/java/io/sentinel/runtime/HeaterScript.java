package io.sentinel.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * ReplayCrashIT's site and what the test sends it, with the heater worked out by hand from those
 * inputs, not read from any log: a fail-safe interlock ({@code heater-cutoff}: off at 3 bar and
 * above, off from each start until its pressure is live) over an automation rule ({@code
 * heater-on}: on below a threshold). {@link #decide} says which commands and claim changes a rule
 * set with a given threshold makes at each step, so that the test knows what replay must report
 * without asking replay. (The fan, held by an operator's override through the crash, is the same
 * under every threshold: whatever replay reports of it is a difference too many.)
 */
final class HeaterScript {
  static final String HEATER = "rc.heater";

  static final String RULES =
      """
      - id: heater-cutoff
        band: interlock
        interlock_class: fail_safe
        fail_value: false
        inputs: { pressure: rc.pressure }
        trigger: { on: transition }
        when: pressure.value >= 3 bar
        claims: [ { point: rc.heater, value: false } ]
        actions:
          - { kind: notify, channel: ops, message: "cut-off at {{ pressure.value }} bar", cooldown: 15m }
        on_input_loss: { assert: false }
        warmup: all_inputs_live
      - id: heater-on
        band: automation
        inputs: { temp: rc.temp }
        trigger: { on: transition }
        when: temp.value < 20 degC
        claims: [ { point: rc.heater, value: true } ]
        on_input_loss: release
        warmup: all_inputs_live
      - id: fan-on
        band: automation
        inputs: { load: rc.load }
        trigger: { on: transition }
        when: load.value >= 100 W
        claims: [ { point: rc.fan, value: true } ]
        on_input_loss: release
        warmup: all_inputs_live
      """;

  static final String POINTS =
      """
      points:
        rc.temp: { type: number, unit: degC, direction: in, range: [-20, 120] }
        rc.pressure: { type: number, unit: bar, direction: in, range: [0, 6] }
        rc.load: { type: number, unit: W, direction: in, range: [0, 100000] }
        rc.heater: { type: bool, direction: out, release_value: false }
        rc.fan: { type: bool, direction: out, release_value: false }
      """;

  /**
   * What the test does. Step 0 is before the window; the load stream, the fan's override and the
   * SIGKILL come before step 10, the override's end before step 16.
   */
  static final List<Step> SCRIPT =
      List.of(
          new Start(),
          new Pressure(1.5),
          new Temp(30),
          new Temp(22),
          new Temp(18),
          new Pressure(3.5),
          new Pressure(1.5),
          new Temp(30),
          new Temp(24),
          new Temp(30),
          new Start(),
          new Pressure(1.5),
          new Temp(19),
          new Temp(30),
          new Temp(23),
          new Temp(30),
          new Push(22),
          new Temp(21),
          new Temp(23),
          new Temp(24),
          new Temp(30));

  /** What the test does, in order. */
  sealed interface Step permits Start, Pressure, Temp, Push {}

  /** A (cold) start of the gateway. */
  record Start() implements Step {}

  /** A pressure sample, bar. */
  record Pressure(double bar) implements Step {}

  /** A temperature sample, degC. */
  record Temp(double degC) implements Step {}

  /** A pushed revision whose heater-on threshold is {@code threshold} degC. */
  record Push(double threshold) implements Step {}

  /** A command or claim change as replay describes it, made at step {@code step}. */
  record Made(int step, String what) {}

  /** The commands (as {@code CommandIntent.describe}) and the claim changes (without reason). */
  record Outcome(List<Made> commands, List<Made> claims) {}

  private HeaterScript() {}

  /**
   * What a rule set starting with {@code threshold} makes of {@code steps}; with {@code
   * followPushes}, each {@link Push} replaces the threshold as an activation does (the changed rule
   * starts afresh on the last temperature), otherwise the threshold holds throughout (replay's
   * {@code --rules}).
   */
  static Outcome decide(List<Step> steps, double threshold, boolean followPushes) {
    List<Made> commands = new ArrayList<>();
    List<Made> claims = new ArrayList<>();
    boolean interlock = false;
    boolean on = false;
    Optional<Double> temp = Optional.empty();
    String outcome = null;
    double limit = threshold;
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      boolean wasInterlock = interlock;
      boolean wasOn = on;
      if (s instanceof Start) {
        // Cold: the interlock asserts its fail value, no other claim, nothing live, and the new
        // engine has commanded nothing yet.
        interlock = true;
        wasInterlock = false;
        on = false;
        wasOn = false;
        temp = Optional.empty();
        outcome = null;
      } else if (s instanceof Pressure p) {
        interlock = p.bar() >= 3;
      } else if (s instanceof Temp t) {
        temp = Optional.of(t.degC());
        on = t.degC() < limit;
      } else if (s instanceof Push p && followPushes) {
        double next = p.threshold();
        limit = next;
        if (on) {
          claims.add(new Made(i, claim(null, "heater-on", "automation")));
          wasOn = false;
        }
        on = temp.map(t -> t < next).orElse(false);
      }
      if (interlock != wasInterlock) {
        claims.add(
            new Made(i, claim(interlock ? Boolean.FALSE : null, "heater-cutoff", "interlock")));
      }
      if (on != wasOn) {
        claims.add(new Made(i, claim(on ? Boolean.TRUE : null, "heater-on", "automation")));
      }
      String now =
          interlock
              ? ":= false (heater-cutoff, interlock)"
              : on ? ":= true (heater-on, automation)" : "released to false";
      if (!now.equals(outcome)) {
        commands.add(new Made(i, HEATER + " " + now));
        outcome = now;
      }
    }
    return new Outcome(commands, claims);
  }

  /** Those of {@code a} that {@code b} does not make at the same step, in order. */
  static List<Made> notIn(List<Made> a, List<Made> b) {
    List<Made> left = new ArrayList<>(b);
    List<Made> out = new ArrayList<>();
    for (Made m : a) {
      if (!left.remove(m)) {
        out.add(m);
      }
    }
    return out;
  }

  private static String claim(Boolean value, String rule, String band) {
    return "claim "
        + HEATER
        + (value == null ? " released" : " := " + value)
        + " by "
        + rule
        + " ("
        + band
        + ")";
  }
}
