package io.sentinel.command;

import io.sentinel.engine.ControlEvent;
import io.sentinel.engine.SelfPoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The control events and self points the plane reports from the call under way. */
final class PlaneReport {
  private List<ControlEvent> events = new ArrayList<>();
  private List<SelfPoint> selfPoints = new ArrayList<>();

  void event(String kind, String subject, String message, Instant at) {
    events.add(new ControlEvent(kind, subject, message, at));
  }

  void selfPoint(SelfPoint p) {
    selfPoints.add(p);
  }

  /** What was reported, handed over; the next call starts afresh. */
  PlaneOutput flush() {
    if (events.isEmpty() && selfPoints.isEmpty()) {
      return PlaneOutput.NONE;
    }
    PlaneOutput out = new PlaneOutput(events, selfPoints);
    events = new ArrayList<>();
    selfPoints = new ArrayList<>();
    return out;
  }
}
