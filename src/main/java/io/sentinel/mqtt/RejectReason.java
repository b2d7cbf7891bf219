package io.sentinel.mqtt;

import java.util.Locale;

/**
 * Why an ingested payload was not taken: the counter's {@code reason} tag and the event's; the one
 * list of them (the door's refusals over HTTP are counted under the same names).
 */
public enum RejectReason {
  OVERSIZE,
  UNREADABLE_JSON,
  UNKNOWN_POINT,
  NOT_AN_INPUT,
  DERIVED_POINT,
  GPIO_SOURCED,
  WRONG_TOPIC,
  WRONG_TYPE,
  NOT_IN_ENUM,
  UNKNOWN_UNIT,
  WRONG_UNIT,
  MISSING_VALUE,
  UNKNOWN_FIELD,
  BAD_QUALITY,
  BAD_TIMESTAMP,
  PATH_NOT_FOUND,
  /**
   * A device timestamp further ahead of the gateway's clock than sentinel.ingest.max-future-skew.
   */
  FUTURE_TIMESTAMP,
  // The door's flaws (door.Flaw, the same names): refused before anything reads the payload.
  BAD_ENCODING,
  CONTROL_CHARACTER,
  DUPLICATE_KEY,
  TOO_DEEP,
  NOT_FINITE,
  /** A sample the pass could not take (a defect upstream of it): it alone is dropped. */
  INVALID_SAMPLE;

  /** The reason the door's flaw is counted under (the same name). */
  public static RejectReason of(io.sentinel.door.Flaw flaw) {
    return valueOf(flaw.name());
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
