package io.sentinel.testing;

import io.sentinel.passlog.Compared;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Replay's verdict on a window, for commands or for claim changes: those both sides have (paired in
 * time order, each history item at most once, within {@code tolerance} of each other), those only
 * the replay has, and those only history has. A gateway stamps a command at its pass, a little
 * after the timer that caused it; replay stamps the timer's own instant, hence the tolerance.
 */
public record ReplayDiff<T extends Compared<T>>(
    List<Match<T>> matched, List<T> onlyInReplay, List<T> onlyInHistory) {

  public ReplayDiff {
    matched = List.copyOf(matched);
    onlyInReplay = List.copyOf(onlyInReplay);
    onlyInHistory = List.copyOf(onlyInHistory);
  }

  public record Match<T>(T history, T replay) {}

  public boolean noDifference() {
    return onlyInReplay.isEmpty() && onlyInHistory.isEmpty();
  }

  /** Compares the items of {@code [from, to]}; items outside it are left out of both sides. */
  public static <T extends Compared<T>> ReplayDiff<T> compare(
      List<T> history, List<T> replay, Instant from, Instant to, Duration tolerance) {
    List<T> h = within(history, from, to);
    List<T> r = within(replay, from, to);
    boolean[] used = new boolean[h.size()];
    List<Match<T>> matched = new ArrayList<>();
    List<T> onlyReplay = new ArrayList<>();
    for (T c : r) {
      int found = -1;
      for (int k = 0; k < h.size(); k++) {
        T candidate = h.get(k);
        if (used[k] || !candidate.sameAs(c)) {
          continue;
        }
        if (Duration.between(candidate.at(), c.at()).abs().compareTo(tolerance) <= 0) {
          found = k;
          break;
        }
      }
      if (found >= 0) {
        used[found] = true;
        matched.add(new Match<>(h.get(found), c));
      } else {
        onlyReplay.add(c);
      }
    }
    List<T> onlyHistory = new ArrayList<>();
    for (int k = 0; k < h.size(); k++) {
      if (!used[k]) {
        onlyHistory.add(h.get(k));
      }
    }
    return new ReplayDiff<>(matched, onlyReplay, onlyHistory);
  }

  private static <T extends Compared<T>> List<T> within(List<T> all, Instant from, Instant to) {
    return all.stream()
        .filter(c -> !c.at().isBefore(from) && !c.at().isAfter(to))
        .sorted(Comparator.comparing(Compared::at))
        .toList();
  }

  /** A line per item, differences first, then the summary line. */
  public List<String> lines(boolean withMatches) {
    return lines(withMatches, "");
  }

  /** {@link #lines(boolean)}, the summary line starting with {@code label} ({@code claims: }). */
  public List<String> lines(boolean withMatches, String label) {
    List<String> out = new ArrayList<>();
    onlyInHistory.forEach(c -> out.add("only in history  " + c.at() + "  " + c.describe()));
    onlyInReplay.forEach(c -> out.add("only in replay   " + c.at() + "  " + c.describe()));
    if (withMatches) {
      matched.forEach(
          m -> out.add("matched          " + m.history().at() + "  " + m.history().describe()));
    }
    out.add(
        label
            + matched.size()
            + " matched, "
            + onlyInReplay.size()
            + " only in replay, "
            + onlyInHistory.size()
            + " only in history");
    return out;
  }
}
