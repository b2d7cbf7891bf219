package io.sentinel.testing;

import io.sentinel.engine.EngineLimits;
import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LogWindow;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.rule.RuleSet;
import io.sentinel.site.Site;
import io.sentinel.wire.PassLogJson;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * A scripted day of the example site, from a cold start at 05:00 to 21:00: a thermostat calling for
 * heat eight times, a flow temperature that follows the burner the engine commands (closed loop), a
 * stuck mixing valve at 12:40 that trips the over-temperature interlock, a pressure spike at 16:10,
 * a warm spell at 18:10 that stays just under the cut-off, door openings (one left open for six
 * minutes), exit-button presses (one inside the strike's cooldown, one during a lockdown drill).
 *
 * <p>{@code main} writes {@code seeds/replay-window.ndjson}: the observations and the commands the
 * engine asked for. Regenerate with {@code ./mvnw -q test-compile exec:java
 * -Dexec.mainClass=io.sentinel.testing.ExampleSiteDay -Dexec.classpathScope=test} (or run the class
 * from an IDE) after a change of the example site or of the engine's semantics.
 */
public final class ExampleSiteDay {
  public static final Instant START = Instant.parse("2026-11-02T05:00:00Z");
  public static final Instant END = Instant.parse("2026-11-02T21:00:00Z");
  public static final Path SHIPPED = Path.of("seeds/replay-window.ndjson");

  /** When the thermostat calls for heat (seconds after midnight, half-open). */
  static final int[][] DEMAND = {
    {hms(5, 30, 0), hms(6, 40, 0)},
    {hms(7, 30, 0), hms(8, 10, 0)},
    {hms(10, 0, 0), hms(10, 45, 0)},
    {hms(12, 30, 0), hms(13, 20, 0)},
    {hms(15, 0, 0), hms(15, 40, 0)},
    {hms(16, 0, 0), hms(16, 30, 0)},
    {hms(17, 45, 0), hms(19, 0, 0)},
    {hms(20, 0, 0), hms(20, 30, 0)},
  };

  /** When the door stands open (seconds after midnight, half-open). */
  static final int[][] DOOR_OPEN = {
    {hms(7, 5, 0), hms(7, 5, 20)},
    {hms(8, 30, 10), hms(8, 30, 40)},
    {hms(12, 0, 0), hms(12, 6, 30)},
    {hms(17, 30, 0), hms(17, 30, 15)},
  };

  /** Exit-button presses: 09:15:03 falls in the strike's 5 s cooldown, 14:10 in the lockdown. */
  static final int[] PRESSES = {
    hms(7, 4, 50),
    hms(8, 30, 0),
    hms(9, 15, 0),
    hms(9, 15, 3),
    hms(14, 10, 0),
    hms(17, 29, 55),
    hms(17, 30, 2)
  };

  static final int[] LOCKDOWN = {hms(14, 0, 0), hms(14, 20, 0)};

  /** The boiler's target flow: 75 degC, 115 while the mixing valve sticks, 93.5 in a warm spell. */
  static double target(int s) {
    if (s >= hms(12, 40, 0) && s < hms(12, 53, 0)) {
      return 115;
    }
    if (s >= hms(18, 10, 0) && s < hms(18, 40, 0)) {
      return 93.5;
    }
    return 75;
  }

  static double pressureSpike(int s) {
    return s >= hms(16, 10, 0) && s < hms(16, 10, 40) ? 1.3 : 0;
  }

  public record Day(LogWindow window, List<CommandIntent> commands) {}

  /** Runs the day through the site's rules; the flow follows the burner the engine commands. */
  public static Day run(RuleSet ruleSet) {
    return run(ruleSet, session -> {});
  }

  /** As {@link #run(RuleSet)}, after {@code prepare} has had the session (to listen to passes). */
  public static Day run(RuleSet ruleSet, java.util.function.Consumer<ReplaySession> prepare) {
    ReplaySession session = new ReplaySession(ruleSet, START, EngineLimits.DEFAULT);
    prepare.accept(session);
    Random noise = new Random(20261102L);
    List<LoggedObservation> log = new ArrayList<>();
    double flow = 21.0;
    boolean demand = false;
    boolean doorOpen = false;
    long seq = 0;
    int dayStart = hms(5, 0, 0);
    session.feed(START, List.of());
    for (int s = dayStart; s <= hms(21, 0, 0); s++) {
      Instant t = START.plusSeconds(s - dayStart);
      boolean burner =
          session
              .engine()
              .output("boiler.ch1.burner")
              .flatMap(d -> d.value())
              .map(Value.TRUE::equals)
              .orElse(false);
      flow += burner ? (target(s) - flow) / 600.0 : (20.0 - flow) / 1800.0;
      List<Observation> now = new ArrayList<>();
      int k = s - dayStart;
      if (k % 25 == 0) {
        double reading = Math.round((flow + noise.nextGaussian() * 0.15) * 10) / 10.0;
        now.add(
            observation(
                "boiler.ch1.flow-temp",
                Value.of(reading),
                "mqtt:zigbee2mqtt/boiler-flow",
                Optional.of(t.plusMillis(137).minusMillis(180)),
                t.plusMillis(137)));
      }
      if (k % 25 == 10) {
        double bar = 1.5 + 0.008 * (flow - 20) + pressureSpike(s) + noise.nextGaussian() * 0.01;
        now.add(
            observation(
                "boiler.ch1.pressure",
                Value.of(Math.round(bar * 100) / 100.0),
                "mqtt:sentinel/example/points/boiler.ch1.pressure",
                Optional.empty(),
                t.plusMillis(412)));
      }
      boolean wantDemand = within(DEMAND, s);
      if (k == 2 || wantDemand != demand) {
        demand = wantDemand;
        now.add(observation("boiler.ch1.demand", Value.of(demand), "gpio:22", t.plusMillis(20)));
      }
      boolean wantOpen = within(DOOR_OPEN, s);
      if (k % 60 == 13 || wantOpen != doorOpen) {
        doorOpen = wantOpen;
        now.add(
            observation(
                "door.main.closed",
                Value.of(!doorOpen),
                "mqtt:zigbee2mqtt/door-main",
                Optional.of(t.plusMillis(250)),
                t.plusMillis(301)));
      }
      if (k % 300 == 29) {
        boolean lockdown = s >= LOCKDOWN[0] && s < LOCKDOWN[1];
        now.add(
            observation(
                "door.main.lockdown",
                Value.of(lockdown),
                "mqtt:sentinel/example/points/door.main.lockdown",
                t.plusMillis(55)));
      }
      if (s == LOCKDOWN[0] || s == LOCKDOWN[1]) {
        now.add(
            observation(
                "door.main.lockdown",
                Value.of(s == LOCKDOWN[0]),
                "mqtt:sentinel/example/points/door.main.lockdown",
                t.plusMillis(60)));
      }
      if (k == 3) {
        // A GPIO input reports its level when the gateway starts: the first press is then an edge.
        now.add(observation("door.main.button", Value.FALSE, "gpio:5", t.plusMillis(20)));
      }
      for (int p : PRESSES) {
        if (s == p || s == p + 1) {
          now.add(observation("door.main.button", Value.of(s == p), "gpio:5", t.plusMillis(20)));
        }
      }
      // Everything of one second arrives at its own receipt instant, in instant order.
      now.sort(java.util.Comparator.comparing(Observation::receivedAt));
      int i = 0;
      while (i < now.size()) {
        Instant at = now.get(i).receivedAt();
        List<Observation> batch = new ArrayList<>();
        for (; i < now.size() && now.get(i).receivedAt().equals(at); i++) {
          batch.add(now.get(i));
          log.add(new LoggedObservation(++seq, now.get(i)));
        }
        session.feed(at, batch);
      }
    }
    session.feed(END, List.of());
    List<CommandIntent> commands = session.commands();
    return new Day(
        new LogWindow(Optional.of("example"), Optional.of(START), Optional.of(END), log, commands),
        commands);
  }

  /** A pass of the day with the audit entries made of it. */
  @FunctionalInterface
  public interface AuditedPass {
    void passed(
        Instant at,
        List<Observation> fed,
        io.sentinel.engine.PassResult result,
        List<io.sentinel.audit.AuditEntry> audit);
  }

  /** Runs the day with an audit trail (revision 1) beside the engine, pass by pass. */
  public static Day runAudited(RuleSet ruleSet, AuditedPass each) {
    return run(
        ruleSet,
        session -> {
          io.sentinel.audit.AuditTrail trail =
              new io.sentinel.audit.AuditTrail(
                  ruleSet,
                  1,
                  id -> session.engine().points().state(id),
                  session.engine()::decision);
          session.listen((t, fed, r) -> each.passed(t, fed, r, trail.entries(t, r)));
        });
  }

  private static Observation observation(String point, Value v, String source, Instant at) {
    return observation(point, v, source, Optional.empty(), at);
  }

  private static Observation observation(
      String point, Value v, String source, Optional<Instant> observedAt, Instant at) {
    return new Observation(point, v, Quality.LIVE, source, observedAt, at);
  }

  private static boolean within(int[][] spans, int s) {
    for (int[] span : spans) {
      if (s >= span[0] && s < span[1]) {
        return true;
      }
    }
    return false;
  }

  static int hms(int h, int m, int s) {
    return h * 3600 + m * 60 + s;
  }

  static Instant at(int h, int m, int s) {
    return START.plus(Duration.ofSeconds(hms(h, m, s) - hms(5, 0, 0)));
  }

  public static void main(String... args) throws Exception {
    RuleSet ruleSet = Site.load(Path.of(".")).site().orElseThrow().ruleSet();
    Day day = run(ruleSet);
    try (Writer out = Files.newBufferedWriter(SHIPPED, StandardCharsets.UTF_8)) {
      PassLogJson.write(out, day.window());
    }
    System.out.println(
        "wrote "
            + SHIPPED
            + ": "
            + day.window().observations().size()
            + " observations, "
            + day.commands().size()
            + " commands");
  }
}
