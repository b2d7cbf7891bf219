package io.sentinel.passlog;

import io.sentinel.engine.PassResult;
import java.time.Instant;
import java.util.List;

/**
 * What one engine pass hands to the log: the observations it took (in the order it took them) and
 * everything it produced. The runtime builds one per pass and offers it without waiting.
 */
public record PassRecord(Instant now, List<Observation> observations, PassResult result) {
  public PassRecord {
    observations = List.copyOf(observations);
  }
}
