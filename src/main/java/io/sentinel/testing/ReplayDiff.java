package io.sentinel.testing;

import io.sentinel.passlog.CommandIntent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Replay's verdict on a window: the commands both asked for (paired in time order, each history
 * command at most once, within {@code tolerance} of each other), those only the replay asked for,
 * and those only history has. A gateway stamps a command at its pass, a little after the timer that
 * caused it; replay stamps the timer's own instant, hence the tolerance.
 */
public record ReplayDiff(
    List<Match> matched, List<CommandIntent> onlyInReplay, List<CommandIntent> onlyInHistory) {

  public ReplayDiff {
    matched = List.copyOf(matched);
    onlyInReplay = List.copyOf(onlyInReplay);
    onlyInHistory = List.copyOf(onlyInHistory);
  }

  public record Match(CommandIntent history, CommandIntent replay) {}

  public boolean noDifference() {
    return onlyInReplay.isEmpty() && onlyInHistory.isEmpty();
  }

  /**
   * Compares the commands of {@code [from, to]}; commands outside it are left out of both sides.
   */
  public static ReplayDiff compare(
      List<CommandIntent> history,
      List<CommandIntent> replay,
      Instant from,
      Instant to,
      Duration tolerance) {
    List<CommandIntent> h = within(history, from, to);
    List<CommandIntent> r = within(replay, from, to);
    boolean[] used = new boolean[h.size()];
    List<Match> matched = new ArrayList<>();
    List<CommandIntent> onlyReplay = new ArrayList<>();
    for (CommandIntent c : r) {
      int found = -1;
      for (int k = 0; k < h.size(); k++) {
        CommandIntent candidate = h.get(k);
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
        matched.add(new Match(h.get(found), c));
      } else {
        onlyReplay.add(c);
      }
    }
    List<CommandIntent> onlyHistory = new ArrayList<>();
    for (int k = 0; k < h.size(); k++) {
      if (!used[k]) {
        onlyHistory.add(h.get(k));
      }
    }
    return new ReplayDiff(matched, onlyReplay, onlyHistory);
  }

  private static List<CommandIntent> within(List<CommandIntent> all, Instant from, Instant to) {
    return all.stream()
        .filter(c -> !c.at().isBefore(from) && !c.at().isAfter(to))
        .sorted(Comparator.comparing(CommandIntent::at))
        .toList();
  }

  /** A line per command, differences first, then the summary line. */
  public List<String> lines(boolean withMatches) {
    List<String> out = new ArrayList<>();
    onlyInHistory.forEach(c -> out.add("only in history  " + c.at() + "  " + c.describe()));
    onlyInReplay.forEach(c -> out.add("only in replay   " + c.at() + "  " + c.describe()));
    if (withMatches) {
      matched.forEach(
          m -> out.add("matched          " + m.history().at() + "  " + m.history().describe()));
    }
    out.add(
        matched.size()
            + " matched, "
            + onlyInReplay.size()
            + " only in replay, "
            + onlyInHistory.size()
            + " only in history");
    return out;
  }
}
