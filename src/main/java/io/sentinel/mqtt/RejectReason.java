package io.sentinel.mqtt;

import java.util.Locale;

/** Why an ingested payload was not taken: the counter's {@code reason} tag and the event's. */
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
  FUTURE_TIMESTAMP;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
