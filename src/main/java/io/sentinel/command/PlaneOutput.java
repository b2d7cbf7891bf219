package io.sentinel.command;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import java.util.List;

/** What the command plane reports besides its commands: control events and self points. */
public record PlaneOutput(List<ControlEvent> events, List<SelfPoint> selfPoints) {
  public static final PlaneOutput NONE = new PlaneOutput(List.of(), List.of());

  public PlaneOutput {
    events = List.copyOf(events);
    selfPoints = List.copyOf(selfPoints);
  }

  public boolean isEmpty() {
    return events.isEmpty() && selfPoints.isEmpty();
  }
}
