package io.sentinel.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.arbitration.Claim;
import io.sentinel.arbitration.Decision;
import io.sentinel.engine.ActionFired;
import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import io.sentinel.point.PointState;
import io.sentinel.point.Quality;
import io.sentinel.point.Transition;
import io.sentinel.point.Value;
import io.sentinel.rule.ActionSpec;
import io.sentinel.rule.Band;
import io.sentinel.rule.RuleSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CommandPlaneTest {
  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  private final FakeDriver driver = new FakeDriver();
  private final CommandPlane plane =
      new CommandPlane(
          new RuleSet(
              YamlRegistry.of(
                  """
                  points:
                    pump: { type: bool, direction: out, command_rate: { min_interval: 2s },
                            release_value: false }
                    lamp: { type: bool, direction: out }
                    burner: { type: bool, direction: out, command_rate: { min_interval: 5s },
                              release_value: false }
                    valve: { type: number, unit: "%", direction: inout, deadband: 1 }
                    strike: { type: bool, direction: out, pulse_max: 5s, release_value: false }
                    gate: { type: bool, direction: out, pulse_max: 5s, release_value: false,
                            command_rate: { min_interval: 2s } }
                  """),
              List.of()),
          spec -> driver,
          CommandSettings.DEFAULT,
          "boot");

  @Test
  void decision_driverReady_commandCarriesValueBandRuleAndId() {
    apply(T0, decisions(assertion("pump", true, Band.AUTOMATION, "pump-run-on")));

    assertThat(driver.sent).hasSize(1);
    Command c = driver.sent.get(0);
    assertThat(c.commandId()).isEqualTo("pump/boot/1");
    assertThat(c.value()).isEqualTo(Value.TRUE);
    assertThat(c.band()).contains(Band.AUTOMATION);
    assertThat(c.ruleId()).contains("pump-run-on");
    assertThat(c.kind()).isEqualTo(Command.Kind.ASSERT);
    assertThat(c.at()).isEqualTo(T0);
  }

  @Test
  void release_pointWithReleaseValue_sendsTheReleaseValue() {
    apply(T0, decisions(assertion("pump", true, Band.AUTOMATION, "r")));
    apply(T0.plusSeconds(3), decisions(release("pump", Optional.of(Value.FALSE))));

    Command c = driver.sent.get(1);
    assertThat(c.kind()).isEqualTo(Command.Kind.RELEASE);
    assertThat(c.value()).isEqualTo(Value.FALSE);
    assertThat(c.band()).isEmpty();
    assertThat(c.ruleId()).isEmpty();
  }

  @Test
  void release_pointWithoutReleaseValue_sendsNoValue() {
    apply(T0, decisions(assertion("lamp", true, Band.AMBIENT, "r")));
    apply(T0, decisions(release("lamp", Optional.empty())));

    assertThat(driver.sent.get(1).value()).isEqualTo(Value.ABSENT);
    assertThat(driver.sent.get(1).isRelease()).isTrue();
  }

  @Test
  void rateLimit_newerValueReplacesWaitingOne_latestSentWhenTheIntervalAllows() {
    apply(T0, decisions(assertion("pump", true, Band.AUTOMATION, "a")));
    apply(T0.plusMillis(500), decisions(release("pump", Optional.of(Value.FALSE))));
    apply(T0.plusMillis(900), decisions(assertion("pump", true, Band.OPERATOR, "b")));

    assertThat(driver.sent).hasSize(1);
    assertThat(plane.nextDue()).contains(T0.plusSeconds(2));
    plane.tick(T0.plusMillis(1999));
    assertThat(driver.sent).hasSize(1);
    plane.tick(T0.plusSeconds(2));
    assertThat(driver.sent).hasSize(2);
    assertThat(driver.sent.get(1).ruleId()).contains("b");
    assertThat(driver.sent.get(1).at()).isEqualTo(T0.plusSeconds(2));
  }

  @Test
  void rateLimit_backToTheLastSentCommandWhileWaiting_nothingMoreIsSent() {
    apply(T0, decisions(assertion("pump", true, Band.AUTOMATION, "a")));
    apply(T0.plusMillis(500), decisions(release("pump", Optional.of(Value.FALSE))));
    apply(T0.plusMillis(900), decisions(assertion("pump", true, Band.AUTOMATION, "a")));
    plane.tick(T0.plusSeconds(3));

    assertThat(driver.sent).hasSize(1);
  }

  @Test
  void driverNotReady_commandKeptAsUndeliverable_sentTheMomentItIsReady() {
    driver.ready = false;
    apply(T0, decisions(assertion("lamp", true, Band.AMBIENT, "r")));
    assertThat(driver.sent).isEmpty();
    assertThat(plane.status("lamp").orElseThrow().waiting()).contains(Value.TRUE);

    driver.ready = true;
    plane.readinessChanged(T0.plusSeconds(60), driver);

    assertThat(driver.sent).extracting(Command::at).containsExactly(T0.plusSeconds(60));
  }

  @Test
  void interlock_notDeliveredWithinTheBound_escalatedAsUnenforcedUntilDelivered() {
    driver.ready = false;
    apply(T0, decisions(assertion("burner", false, Band.INTERLOCK, "cutoff")));
    assertThat(plane.tick(T0.plusMillis(4999)).isEmpty()).isTrue();

    PlaneOutput late = plane.tick(T0.plusSeconds(5));
    assertThat(late.events())
        .extracting(ControlEvent::kind)
        .containsExactly("interlock-unenforced");
    assertThat(late.selfPoints())
        .containsExactly(
            new SelfPoint("point.burner.interlock-unenforced", Value.TRUE, T0.plusSeconds(5)));

    driver.ready = true;
    plane.readinessChanged(T0.plusSeconds(7), driver);
    PlaneOutput enforced = plane.delivered(T0.plusSeconds(7), driver.sent.get(0).commandId());
    assertThat(enforced.events())
        .extracting(ControlEvent::kind)
        .containsExactly("interlock-enforced");
    assertThat(enforced.selfPoints()).extracting(SelfPoint::value).containsExactly(Value.FALSE);
  }

  @Test
  void interlock_deliveredInTime_nothingEscalated() {
    apply(T0, decisions(assertion("burner", false, Band.INTERLOCK, "cutoff")));
    plane.delivered(T0.plusMillis(3), driver.sent.get(0).commandId());

    assertThat(plane.tick(T0.plusSeconds(10)).isEmpty()).isTrue();
  }

  @Test
  void interlock_doesNotWaitForTheRateInterval() {
    apply(T0, decisions(assertion("burner", true, Band.AUTOMATION, "on-demand")));
    apply(T0.plusSeconds(1), decisions(assertion("burner", false, Band.INTERLOCK, "cut")));

    assertThat(driver.sent).extracting(Command::value).containsExactly(Value.TRUE, Value.FALSE);
  }

  @Test
  void failedDelivery_handedOverAgainWithTheSameIdInOrder() {
    apply(T0, decisions(assertion("lamp", true, Band.AMBIENT, "r")));
    apply(T0, decisions(release("lamp", Optional.empty())));
    driver.ready = false;
    plane.failed(T0.plusSeconds(1), "lamp/boot/1");
    plane.failed(T0.plusSeconds(1), "lamp/boot/2");
    assertThat(driver.sent).hasSize(2);

    driver.ready = true;
    plane.readinessChanged(T0.plusSeconds(2), driver);

    assertThat(driver.sent)
        .extracting(Command::commandId)
        .containsExactly("lamp/boot/1", "lamp/boot/2", "lamp/boot/1", "lamp/boot/2");
    plane.delivered(T0.plusSeconds(2), "lamp/boot/1");
    plane.delivered(T0.plusSeconds(2), "lamp/boot/2");
    assertThat(plane.status("lamp").orElseThrow().unconfirmed()).isZero();
    assertThat(plane.status("lamp").orElseThrow().delivered()).isTrue();
  }

  @Test
  void inout_feedbackDoesNotReachTheValue_reportedAsNotConverged() {
    apply(T0, decisions(assertion("valve", 40, Band.AUTOMATION, "r")));
    plane.delivered(T0, "valve/boot/1");
    apply(T0.plusSeconds(1), feedback("valve", 10, 20));

    PlaneOutput out = plane.tick(T0.plusSeconds(30));

    assertThat(out.events())
        .extracting(ControlEvent::kind)
        .containsExactly("command-not-converged");
    assertThat(out.events().get(0).message()).contains("feedback is 20", "not 40");
    assertThat(out.selfPoints())
        .extracting(p -> p.name() + "=" + p.value())
        .containsExactly("point.valve.not-converged=true");
  }

  @Test
  void inout_notConverged_thenTheFeedbackReachesTheValue_convergedAgain() {
    apply(T0, decisions(assertion("valve", 40, Band.AUTOMATION, "r")));
    plane.delivered(T0, "valve/boot/1");
    plane.tick(T0.plusSeconds(30));

    PlaneOutput out = apply(T0.plusSeconds(40), feedback("valve", 0, 40));

    assertThat(out.events()).extracting(ControlEvent::kind).containsExactly("command-converged");
    assertThat(out.selfPoints())
        .extracting(p -> p.name() + "=" + p.value())
        .containsExactly("point.valve.not-converged=false");
    // Said once: more feedback at the value reports nothing.
    assertThat(apply(T0.plusSeconds(41), feedback("valve", 40, 40.2)).isEmpty()).isTrue();
  }

  @Test
  void driverReady_interlockCommandsAreHandedOverBeforeTheOthersThatWaited() {
    driver.ready = false;
    apply(T0, decisions(assertion("pump", true, Band.AUTOMATION, "pump-run-on")));
    apply(T0, decisions(assertion("lamp", true, Band.AMBIENT, "lights")));
    apply(T0, decisions(assertion("burner", false, Band.INTERLOCK, "overheat-cutoff")));

    driver.ready = true;
    plane.readinessChanged(T0.plusSeconds(1), driver);

    assertThat(driver.sent).extracting(Command::pointId).containsExactly("burner", "pump", "lamp");
  }

  @Test
  void inout_feedbackReachesTheValueWithinItsDeadband_nothingReported() {
    apply(T0, decisions(assertion("valve", 40, Band.AUTOMATION, "r")));
    plane.delivered(T0, "valve/boot/1");
    apply(T0.plusSeconds(4), feedback("valve", 20, 39.5));

    assertThat(plane.tick(T0.plusSeconds(30)).isEmpty()).isTrue();
  }

  @Test
  void pulse_onAtOnce_offAfterItsDurationBackToTheReleaseValue() {
    apply(T0, actions(new ActionFired("door/0/1", "door", pulse("3s"), T0)));
    plane.tick(T0.plusMillis(2999));
    plane.tick(T0.plusSeconds(3));

    assertThat(driver.sent)
        .extracting(Command::kind, Command::value, Command::at)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Command.Kind.PULSE_ON, Value.TRUE, T0),
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_OFF, Value.FALSE, T0.plusSeconds(3)));
  }

  @Test
  void pulse_commandCarriesItsLength() {
    apply(T0, actions(new ActionFired("door/0/1", "door", pulse("3s"), T0)));

    assertThat(driver.sent.get(0).ramp()).isEqualTo(java.time.Duration.ofSeconds(3));
  }

  @Test
  void pulseMax_aClaimOfTrueOnAStrike_endsAfterPulseMaxThoughTheClaimStays() {
    apply(T0, decisions(assertion("strike", true, Band.OPERATOR, "hold-door")));
    plane.tick(T0.plusMillis(4999));
    assertThat(driver.sent).hasSize(1);
    plane.tick(T0.plusSeconds(5));
    plane.tick(T0.plusSeconds(60));

    assertThat(driver.sent)
        .extracting(Command::kind, Command::value, Command::at)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Command.Kind.ASSERT, Value.TRUE, T0),
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_OFF, Value.FALSE, T0.plusSeconds(5)));
  }

  @Test
  void pulseMax_aReleaseThatNeverLeft_doesNotCancelTheCutOff() {
    apply(T0, decisions(assertion("gate", true, Band.OPERATOR, "hold")));
    // The release waits for the rate interval, and the same claim is back before it could leave:
    // nothing more is sent, and the gate is still energised since T0.
    apply(T0.plusMillis(500), decisions(release("gate", Optional.of(Value.FALSE))));
    apply(T0.plusMillis(900), decisions(assertion("gate", true, Band.OPERATOR, "hold")));
    plane.tick(T0.plusSeconds(3));
    assertThat(driver.sent).hasSize(1);
    plane.tick(T0.plusSeconds(5));

    assertThat(driver.sent)
        .extracting(Command::kind, Command::value, Command::at)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Command.Kind.ASSERT, Value.TRUE, T0),
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_OFF, Value.FALSE, T0.plusSeconds(5)));
  }

  @Test
  void pulseMax_aSecondPulseDuringAPulse_extendsToTheLaterEndButNotPastPulseMax() {
    apply(T0, actions(new ActionFired("door/0/1", "door", pulse("3s"), T0)));
    apply(
        T0.plusSeconds(1),
        actions(new ActionFired("door/0/2", "door", pulse("3s"), T0.plusSeconds(1))));
    apply(
        T0.plusSeconds(3),
        actions(new ActionFired("door/0/3", "door", pulse("4s"), T0.plusSeconds(3))));
    plane.tick(T0.plusMillis(4999));
    assertThat(driver.sent).hasSize(3);
    plane.tick(T0.plusSeconds(5));

    assertThat(driver.sent)
        .extracting(Command::kind, Command::at, Command::ramp)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_ON, T0, java.time.Duration.ofSeconds(3)),
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_ON, T0.plusSeconds(1), java.time.Duration.ofSeconds(3)),
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_ON, T0.plusSeconds(3), java.time.Duration.ofSeconds(2)),
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.PULSE_OFF, T0.plusSeconds(5), java.time.Duration.ZERO));
  }

  @Test
  void pulseMax_afterThePulseEnds_aNewPulseHasAWholePulseMaxAgain() {
    apply(T0, actions(new ActionFired("door/0/1", "door", pulse("5s"), T0)));
    plane.tick(T0.plusSeconds(5));
    apply(
        T0.plusSeconds(6),
        actions(new ActionFired("door/0/2", "door", pulse("5s"), T0.plusSeconds(6))));

    assertThat(driver.sent.get(2).ramp()).isEqualTo(java.time.Duration.ofSeconds(5));
  }

  @Test
  void fade_isACommandWithItsTargetAndRamp() {
    apply(
        T0,
        actions(
            new ActionFired(
                "lights/0/1",
                "door",
                new ActionSpec.Fade(
                    "valve",
                    Value.of(30),
                    java.time.Duration.ofMillis(5000),
                    new io.sentinel.point.SourceRef("test", 0)),
                T0)));

    assertThat(driver.sent)
        .extracting(Command::kind, Command::value, Command::ramp)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                Command.Kind.FADE, Value.of(30), java.time.Duration.ofSeconds(5)));
  }

  private static ActionSpec pulse(String duration) {
    return new ActionSpec.Pulse(
        "strike",
        io.sentinel.site.yaml.YamlFile.parseDuration(duration).orElseThrow(),
        duration,
        java.time.Duration.ZERO,
        true,
        new io.sentinel.point.SourceRef("test", 0));
  }

  private static Decision assertion(String point, Object value, Band band, String rule) {
    Value v = value instanceof Boolean b ? Value.of(b) : Value.of(((Number) value).doubleValue());
    Claim c = new Claim(rule, point, band, 0, v, T0, 0);
    return new Decision(point, Optional.of(c), Optional.of(v), List.of(c), "sole");
  }

  private static Decision release(String point, Optional<Value> releaseValue) {
    return new Decision(point, Optional.empty(), releaseValue, List.of(), "released");
  }

  private static Pass decisions(Decision... ds) {
    return new Pass(List.of(), List.of(ds), List.of());
  }

  private static Pass actions(ActionFired... as) {
    return new Pass(List.of(), List.of(), List.of(as));
  }

  private static Pass feedback(String point, double before, double after) {
    PointState b = new PointState(Value.of(before), Quality.LIVE, T0);
    PointState a = new PointState(Value.of(after), Quality.LIVE, T0);
    return new Pass(List.of(new Transition(point, b, a, true, false)), List.of(), List.of());
  }

  /** The parts of an engine pass that the command plane reads. */
  private record Pass(
      List<Transition> transitions, List<Decision> decisions, List<ActionFired> actions) {}

  private PlaneOutput apply(Instant now, Pass pass) {
    return plane.apply(now, pass.transitions(), pass.decisions(), pass.actions());
  }

  private static final class FakeDriver implements Driver {
    boolean ready = true;
    final List<Command> sent = new ArrayList<>();

    @Override
    public String name() {
      return "fake";
    }

    @Override
    public boolean ready() {
      return ready;
    }

    @Override
    public void send(Command command) {
      sent.add(command);
    }
  }
}
