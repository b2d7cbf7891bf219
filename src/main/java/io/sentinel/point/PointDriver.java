package io.sentinel.point;

import java.util.Optional;

/** What drives an output point: the command plane hands its commands to this driver. */
public sealed interface PointDriver {
  /** A digital output pin (BCM number); {@code activeLow}: true drives the pin low. */
  record Gpio(int pin, boolean activeLow) implements PointDriver {}

  /**
   * Commands go to {@code sentinel/<site>/commands/<id>} unless a topic is given; as Sentinel's
   * command JSON unless a device {@code template} says how the device spells them.
   */
  record Mqtt(Optional<String> topic, Optional<CommandTemplate> template) implements PointDriver {
    public Mqtt(Optional<String> topic) {
      this(topic, Optional.empty());
    }
  }
}
