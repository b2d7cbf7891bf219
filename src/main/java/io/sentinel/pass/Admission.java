package io.sentinel.pass;

import io.sentinel.point.PointTable;
import io.sentinel.point.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a pass takes: a sample the point table cannot hold (an unknown point, a value its type does
 * not accept: a non-finite number, a string for a bool) is refused alone, before the engine sees
 * it, so that one bad sample never costs the others in its pass. The ingest door refuses these
 * already; this is the pass's own guarantee for any caller.
 */
public final class Admission {
  private Admission() {}

  /** A sample the pass did not take, and why. */
  public record Refused(Sample sample, String reason) {}

  /** Why the pass cannot take {@code s}, or empty when it can. */
  public static Optional<String> refusal(PointTable points, Sample s) {
    if (s == null
        || s.pointId() == null
        || s.value() == null
        || s.quality() == null
        || s.at() == null) {
      return Optional.of("an incomplete sample");
    }
    int i = points.indexOf(s.pointId());
    if (i < 0) {
      return Optional.of("unknown point " + s.pointId());
    }
    if (s.value().isPresent() && !points.spec(i).type().accepts(s.value())) {
      return Optional.of(
          "point " + s.pointId() + " is " + points.spec(i).type().name() + ", not " + s.value());
    }
    return Optional.empty();
  }

  /** The samples the pass can take, in order; the others go to {@code refused}. */
  public static List<Sample> admit(PointTable points, List<Sample> samples, List<Refused> refused) {
    List<Sample> ok = null;
    for (int k = 0; k < samples.size(); k++) {
      Sample s = samples.get(k);
      Optional<String> why = refusal(points, s);
      if (why.isPresent()) {
        if (ok == null) {
          ok = new ArrayList<>(samples.subList(0, k));
        }
        refused.add(new Refused(s, why.get()));
      } else if (ok != null) {
        ok.add(s);
      }
    }
    return ok == null ? samples : ok;
  }
}
