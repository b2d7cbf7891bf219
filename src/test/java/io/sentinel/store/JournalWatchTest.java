package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * When the journal counts as unable to move (liveness down): each cause only once it has lasted
 * stuck-after, the stall gone as soon as its cause is, and said once when it begins and once when
 * it ends. A clock of the test's own: no waiting.
 */
class JournalWatchTest {
  static final Duration AFTER = Duration.ofSeconds(60);
  // Odd: the watch marks a start as (nanos | 1), so that 0 stays "not now".
  final AtomicLong now = new AtomicLong(1_000_000_001L);
  final JournalWatch watch = new JournalWatch(AFTER, now::get);

  void pass(Duration d) {
    now.addAndGet(d.toNanos());
  }

  Optional<JournalStall> stall() {
    return watch.stall(0, "", "10 of 10 bytes on disk");
  }

  @Test
  void aFailingDisk_isAStallOnlyOnceItLasts_andEndsAtTheNextSync() {
    watch.diskFailed(new IOException("No space left on device\nFORGED"));
    pass(AFTER.minusSeconds(1));
    assertThat(stall()).isEmpty();
    pass(Duration.ofSeconds(1));
    assertThat(stall())
        .hasValueSatisfying(
            s -> {
              assertThat(s.reason()).contains("disk fails").contains("No space left on device");
              assertThat(s.reason()).doesNotContain("\n").contains("\\u000aFORGED");
              assertThat(s.lasting()).isEqualTo(AFTER);
            });
    watch.diskFailed(new IOException("again"));
    assertThat(stall().orElseThrow().lasting()).isEqualTo(AFTER);
    watch.synced();
    assertThat(stall()).isEmpty();
  }

  @Test
  void atItsBound_isAStallOnceItLasts_andEndsWithRoom() {
    watch.full(true);
    pass(Duration.ofSeconds(30));
    watch.full(true);
    pass(Duration.ofSeconds(30));
    assertThat(watch.stall(0, "connection refused", "10 of 10 bytes on disk"))
        .hasValueSatisfying(
            s ->
                assertThat(s.reason())
                    .contains("at its bound (10 of 10 bytes on disk)")
                    .contains("no MQTT message is acknowledged")
                    .contains("PostgreSQL: connection refused"));
    watch.full(false);
    assertThat(stall()).isEmpty();
    watch.full(true);
    pass(AFTER.minusSeconds(1));
    assertThat(stall()).as("the bound counted again from its new start").isEmpty();
  }

  @Test
  void postgresqlRefusingEverything_isAStallOnceItLasts() {
    long since = now.get();
    pass(AFTER.minusMillis(1));
    assertThat(watch.stall(since, "relation \"observations\" does not exist", "")).isEmpty();
    pass(Duration.ofMillis(1));
    assertThat(watch.stall(since, "relation \"observations\" does not exist", ""))
        .hasValueSatisfying(
            s -> assertThat(s.reason()).contains("PostgreSQL answers").contains("observations"));
  }

  @Test
  void postgresqlMerelyAway_withRoom_isNoStall() {
    pass(Duration.ofHours(2));
    assertThat(watch.stall(0, "connection refused", "")).isEmpty();
  }

  @Test
  void aStall_isSaidOnceWhenItBegins_andOnceWhenItEnds() {
    assertThat(watch.changed(Optional.empty())).isEmpty();
    Optional<JournalStall> s = Optional.of(new JournalStall("why", Duration.ofSeconds(61)));
    assertThat(watch.changed(s))
        .hasValueSatisfying(
            m -> assertThat(m).contains("cannot move, for 61 s: why").contains("down"));
    assertThat(watch.changed(s)).isEmpty();
    assertThat(watch.changed(Optional.empty()))
        .hasValueSatisfying(m -> assertThat(m).contains("moves again"));
    assertThat(watch.changed(Optional.empty())).isEmpty();
  }
}
