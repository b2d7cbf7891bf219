package io.sentinel.bench;

/**
 * The greenhouse transition stream of the shared bench: for the same zones, flip-every and seed it
 * is, sample for sample, what {@code shared/bench/loadgen/loadgen.js} publishes in gateway mode and
 * what {@code shared/bench/drools-core}'s {@code GreenhouseStream} feeds Drools (copied from there,
 * not changed). Zones are numbered 1..Z, the noise comes from mulberry32(seed), values are rounded
 * to 0.1.
 *
 * <ol>
 *   <li><b>settle</b> (2Z transitions): every zone once on the opposite of its starting side, then
 *       once on its starting side (odd zones start hot).
 *   <li><b>load</b> (unbounded): transition k goes to zone i = k mod Z + 1 on visit v = k div Z;
 *       the zone flips side when v &gt; 0 and (v + i) mod F == 0, so 1/F of the transitions flip.
 * </ol>
 *
 * A value is 20±1 (cold) or 31±1 (hot), so it never crosses the threshold 28 except on a flip.
 */
final class GreenhouseStream {
  final int zones;
  final int flipEvery;
  private int rngState;
  private final boolean[] hot;
  private long seq;

  /** Filled by {@link #next()}. */
  int zone;

  /** The value times ten, exactly. */
  int tenths;

  /** This transition flipped its zone (load phase only). */
  boolean flip;

  GreenhouseStream(int zones, int flipEvery, int seed) {
    if (zones < 1 || flipEvery < 1) {
      throw new IllegalArgumentException("zones and flip-every must be >= 1");
    }
    this.zones = zones;
    this.flipEvery = flipEvery;
    this.rngState = seed;
    this.hot = new boolean[zones + 1];
    for (int i = 1; i <= zones; i++) {
      hot[i] = (i % 2) == 1;
    }
  }

  long settleLength() {
    return 2L * zones;
  }

  /** Advances to the next transition; returns its zone. */
  int next() {
    long s = seq++;
    if (s < zones) {
      zone = (int) s + 1;
      flip = false;
      tenths = sample(!hot[zone]);
    } else if (s < 2L * zones) {
      zone = (int) (s - zones) + 1;
      flip = false;
      tenths = sample(hot[zone]);
    } else {
      long k = s - 2L * zones;
      int i = (int) (k % zones) + 1;
      long v = k / zones;
      flip = v > 0 && (v + i) % flipEvery == 0;
      if (flip) {
        hot[i] = !hot[i];
      }
      zone = i;
      tenths = sample(hot[i]);
    }
    return zone;
  }

  double value() {
    return tenths / 10.0;
  }

  /** Math.round(((hot ? 31 : 20) + (rnd() * 2 - 1)) * 10), as in loadgen.js. */
  private int sample(boolean isHot) {
    double x = ((isHot ? 31 : 20) + (rnd() * 2 - 1)) * 10;
    return (int) Math.round(x);
  }

  /** mulberry32, bit for bit as in loadgen.js. */
  private double rnd() {
    rngState = rngState + 0x6D2B79F5;
    int s = rngState;
    int t = (s ^ (s >>> 15)) * (1 | s);
    t = (t + (t ^ (t >>> 7)) * (61 | t)) ^ t;
    return ((t ^ (t >>> 14)) & 0xFFFFFFFFL) / 4294967296.0;
  }
}
