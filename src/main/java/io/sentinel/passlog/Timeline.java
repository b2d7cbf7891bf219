package io.sentinel.passlog;

import io.sentinel.engine.OperatorOverride;
import io.sentinel.engine.RestartState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What happened to the engine in a window besides its observations, as the log recorded it
 * (docs/replay.md): the starts (each a cold start with what it took back), the revisions activated,
 * the operators' overrides and the changes of ingest lag. Replay reproduces each at its instant.
 *
 * @param starts in time order; the first is where the replay begins (a recorded start, or the
 *     window's lead when the log holds none before it)
 */
public record Timeline(
    List<Start> starts,
    List<Activation> activations,
    List<OverrideRequest> overrides,
    List<LagChange> lag) {

  public Timeline {
    starts = List.copyOf(starts);
    activations = List.copyOf(activations);
    overrides = List.copyOf(overrides);
    lag = List.copyOf(lag);
  }

  /**
   * A start of the engine: cold at {@code engineStart} (its fail-safe claims carry that instant),
   * with {@code state} taken back, running {@code revision} (0: not known from the log; the site's
   * files), its first pass at {@code at} (where its commands are stamped).
   *
   * @param recorded whether the log recorded it, or replay assumed it at the window's lead
   * @param previousRunEnd the last instant the run before it logged a pass's outcome (an
   *     observation, a decision, a claim change, an action): its timers ran up to there
   */
  public record Start(
      Instant engineStart,
      Instant at,
      long revision,
      RestartState state,
      boolean recorded,
      Optional<Instant> previousRunEnd) {}

  /** A revision that became the active rule set between two passes at {@code at}. */
  public record Activation(Instant at, long revision) {}

  /**
   * An operator's override set ({@code set} present) or cleared, taken in the pass at {@code at}.
   */
  public record OverrideRequest(Instant at, String pointId, Optional<OperatorOverride> set) {}

  /** From the pass at {@code at}, ingest lags (warmup deadlines and staleness pause) or not. */
  public record LagChange(Instant at, boolean lagging) {}

  /** A single cold start at {@code at} with nothing taken back (an exported file's window). */
  public static Timeline coldStart(Instant at) {
    return new Timeline(
        List.of(new Start(at, at, 0, RestartState.NONE, false, Optional.empty())),
        List.of(),
        List.of(),
        List.of());
  }
}
