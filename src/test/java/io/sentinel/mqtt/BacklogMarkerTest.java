package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Where the broker's queued backlog ends (docs/live.md, "The backlog marker"): this connect's
 * marker back, never an earlier one; no drain on a session the broker did not keep; and a marker
 * that never comes back (an ACL, a broker that drops it) ends the drain once nothing has arrived
 * for the quiet time, never while the queue still flows.
 */
class BacklogMarkerTest {
  private static final Duration QUIET = Duration.ofSeconds(1);

  private final List<Boolean> drains = new CopyOnWriteArrayList<>();
  private final BacklogMarker marker =
      new BacklogMarker("sentinel/home/ingest/marker/gw", QUIET, drains::add);

  @Test
  void thisConnectsMarkerBack_endsTheDrain_oneLeftByAnEarlierConnectDoesNot() {
    byte[] earlier = marker.connected();
    marker.lost();
    byte[] mine = marker.connected();
    assertThat(mine).isNotEqualTo(earlier);
    marker.returned(earlier);
    assertThat(marker.draining()).isTrue();
    marker.returned(mine);
    assertThat(marker.draining()).isFalse();
    marker.returned(mine); // delivered again: changes nothing
    assertThat(drains).containsExactly(true, true, false);
  }

  @Test
  void aSessionTheBrokerDidNotKeep_hasNothingToDrain() {
    marker.nothingQueued();
    assertThat(marker.draining()).isFalse();
    assertThat(drains).containsExactly(false);
  }

  @Test
  void aMarkerThatNeverComesBack_endsTheDrainOnceTheQueueIsQuiet_notWhileItFlows() {
    marker.connected();
    // Three quiet times of a queue still flowing (a message every 20 ms): still draining.
    long flowing = System.nanoTime() + QUIET.multipliedBy(3).toNanos();
    while (System.nanoTime() < flowing) {
      marker.arrived();
      LockSupport.parkNanos(20_000_000L);
      assertThat(marker.draining()).as("draining while messages arrive").isTrue();
    }
    long lastArrival = System.nanoTime();
    await().atMost(QUIET.multipliedBy(5)).until(() -> !marker.draining());
    assertThat(Duration.ofNanos(System.nanoTime() - lastArrival)).isGreaterThanOrEqualTo(QUIET);
    assertThat(drains).containsExactly(true, false);
  }
}
