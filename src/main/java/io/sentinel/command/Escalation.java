package io.sentinel.command;

import io.sentinel.engine.SelfPoint;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The plane's bounds: an interlock-band command not delivered within {@link
 * CommandSettings#interlockBound} is escalated (and de-escalated once delivered or superseded), and
 * an {@code inout} point's feedback that does not reach a delivered value within {@link
 * CommandSettings#convergenceBound} is reported.
 */
final class Escalation {
  private final CommandSettings settings;
  private final PlaneReport report;
  private final BiConsumer<Instant, DeliverySlot> schedule;

  Escalation(
      CommandSettings settings, PlaneReport report, BiConsumer<Instant, DeliverySlot> schedule) {
    this.settings = settings;
    this.report = report;
    this.schedule = schedule;
  }

  /**
   * An interlock is enforced when the newest command for its point is an interlock command that the
   * driver confirmed. The bound runs from the moment an interlock command became the newest.
   */
  void review(DeliverySlot s, Instant now) {
    Optional<Band> newestBand =
        s.waiting != null
            ? s.waiting.band()
            : s.lastHanded != null ? s.lastHanded.band() : Optional.empty();
    boolean interlockNewest = newestBand.filter(b -> b == Band.INTERLOCK).isPresent();
    boolean enforced = interlockNewest && s.waiting == null && s.lastHandedConfirmed;
    if (!interlockNewest || enforced) {
      s.interlockSince = null;
      if (s.escalated) {
        s.escalated = false;
        report.event(
            enforced ? "interlock-enforced" : "interlock-superseded",
            s.spec.id(),
            enforced
                ? "interlock command " + s.lastHanded.commandId() + " delivered"
                : "the interlock claim gave way before its command was delivered",
            now);
        report.selfPoint(new SelfPoint(unenforcedName(s), Value.FALSE, now));
      }
      return;
    }
    if (s.interlockSince == null) {
      s.interlockSince = now;
      schedule.accept(now.plus(settings.interlockBound()), s);
    }
  }

  /** A slot fell due: the bounds that ran out by {@code now} are reported. */
  void checkBounds(DeliverySlot s, Instant now) {
    if (s.interlockSince != null
        && !s.escalated
        && !now.isBefore(s.interlockSince.plus(settings.interlockBound()))) {
      s.escalated = true;
      report.event(
          "interlock-unenforced",
          s.spec.id(),
          "interlock command not delivered within "
              + human(settings.interlockBound())
              + (s.driver.ready() ? "" : ": driver " + s.driver.name() + " is not ready"),
          now);
      report.selfPoint(new SelfPoint(unenforcedName(s), Value.TRUE, now));
    }
    if (s.convergeTo != null && !now.isBefore(s.convergeBy)) {
      report.event(
          "command-not-converged",
          s.spec.id(),
          "feedback is "
              + s.feedback
              + ", not "
              + s.convergeTo
              + ", "
              + human(settings.convergenceBound())
              + " after command "
              + s.convergeCommand,
          now);
      s.convergeTo = null;
      if (!s.notConverged) {
        s.notConverged = true;
        report.selfPoint(new SelfPoint(notConvergedName(s), Value.TRUE, now));
      }
    }
  }

  /**
   * The feedback reached the last delivered command's value: a point reported not converged is
   * converged again ({@code command-converged}, self point false).
   */
  void converged(DeliverySlot s, Instant now) {
    if (!s.notConverged) {
      return;
    }
    s.notConverged = false;
    report.event(
        "command-converged",
        s.spec.id(),
        "feedback is " + s.feedback + ", as command " + s.lastHanded.commandId() + " asked",
        now);
    report.selfPoint(new SelfPoint(notConvergedName(s), Value.FALSE, now));
  }

  private static String notConvergedName(DeliverySlot s) {
    return CommandPlane.notConvergedPoint(s.spec.id());
  }

  /** 500ms, 5s, 2m: how a site writes durations. */
  private static String human(Duration d) {
    long ms = d.toMillis();
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  private static String unenforcedName(DeliverySlot s) {
    return "point." + s.spec.id() + ".interlock-unenforced";
  }
}
