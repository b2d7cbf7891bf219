package io.sentinel.engine;

import java.util.Locale;

/** Where a rule stands, as the API and the fixture runner report it. */
public enum RuleState {
  WARMUP,
  ACTIVE,
  /** Inputs lost under on_input_loss: hold; claims kept until hold_max. */
  HOLDING,
  /** Inputs lost: claims released or asserted defensively (hold past hold_max ends here too). */
  INPUT_LOST,
  SUSPENDED,
  DISABLED;

  // Made once: it is written for every record the journal keeps.
  private final String wireName = name().toLowerCase(Locale.ROOT).replace('_', '-');

  public String wireName() {
    return wireName;
  }
}
