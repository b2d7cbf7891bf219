package io.sentinel.runtime;

import io.sentinel.command.PlaneOutput;
import io.sentinel.engine.PassResult;
import java.time.Instant;

/** Where a pass's outputs go (publication, logs, metrics); called on the engine's context. */
public interface Outputs {
  void passed(Instant now, PassResult result, PlaneOutput plane, int samples);

  void planeReported(PlaneOutput plane);
}
