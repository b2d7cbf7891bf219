package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fence's decision on ticks of a clock (the units are arbitrary, a lease of 300 stands for
 * three checks of 100): open only within a lease's length of the last confirmed check, dated when
 * the check was sent; closed for good once its time is up or a check refutes it; the loss taken
 * once (docs/standby.md, "The fence closes by itself").
 */
class CoreLeaseTest {
  private static final long LENGTH = 300;

  @Test
  void open_untilTheLengthAfterTheCheckThatConfirmedIt_thenLapsed() {
    CoreLease lease = new CoreLease(1_000, LENGTH);
    assertThat(lease.open(1_000)).isTrue();
    assertThat(lease.open(1_299)).isTrue();
    assertThat(lease.open(1_300)).isFalse();
    assertThat(lease.state(1_300)).isEqualTo(CoreLease.State.LAPSED);
  }

  @Test
  void aConfirmation_extendsFromWhenItsCheckWasSent_notFromWhenItWasAnswered() {
    CoreLease lease = new CoreLease(0, LENGTH);
    lease.confirmed(100, 250); // asked at 100, answered at 250
    assertThat(lease.open(399)).isTrue();
    assertThat(lease.open(400)).as("300 after the asking, not after the answer").isFalse();
  }

  @Test
  void aCheckThatHangs_confirmsNothing_andTheLeaseLapsesByItself() {
    CoreLease lease = new CoreLease(0, LENGTH);
    lease.confirmed(100, 110);
    // The next check, sent at 200, never answers: nothing is fed; time alone closes the fence.
    assertThat(lease.open(350)).isTrue();
    assertThat(lease.open(400)).isFalse();
    assertThat(lease.takeLoss(400)).isTrue();
  }

  @Test
  void closedByTime_evenWhenNobodyLooked_aLateAnswerDoesNotReopenIt() {
    CoreLease lease = new CoreLease(0, LENGTH);
    // Sent at 200 (within the lease), answered at 700, after the lease ran out at 300: it had
    // closed by then whether or not a send or the fence's watch asked in between.
    lease.confirmed(200, 700);
    assertThat(lease.state(700)).isEqualTo(CoreLease.State.LAPSED);
    assertThat(lease.open(701)).isFalse();
  }

  @Test
  void answersOutOfOrder_neverShortenTheLease() {
    CoreLease lease = new CoreLease(0, LENGTH);
    lease.confirmed(200, 210);
    lease.confirmed(100, 220); // an older check answered later
    assertThat(lease.open(499)).isTrue();
    assertThat(lease.open(500)).isFalse();
  }

  @Test
  void aRefutingCheck_closesAtOnce_andConfirmationsAfterItDoNotReopen() {
    CoreLease lease = new CoreLease(0, LENGTH);
    lease.refuted();
    assertThat(lease.state(10)).isEqualTo(CoreLease.State.REFUTED);
    lease.confirmed(20, 30);
    assertThat(lease.open(40)).isFalse();
  }

  @Test
  void theLoss_isTakenOnce_whoeverLooksFirst() {
    CoreLease lease = new CoreLease(0, LENGTH);
    assertThat(lease.takeLoss(100)).as("open: no loss").isFalse();
    assertThat(lease.open(300)).isFalse(); // a send found it closed first
    assertThat(lease.takeLoss(310)).isTrue();
    assertThat(lease.takeLoss(320)).isFalse();
  }

  @Test
  void endedByTheRole_closed_withNoLossToTake() {
    CoreLease lease = new CoreLease(0, LENGTH);
    lease.end();
    assertThat(lease.state(10)).isEqualTo(CoreLease.State.ENDED);
    assertThat(lease.takeLoss(1_000)).isFalse();
  }

  @Test
  void sinceConfirmed_countsFromTheLastConfirmedAsking() {
    CoreLease lease = new CoreLease(0, LENGTH);
    lease.confirmed(150, 160);
    assertThat(lease.sinceConfirmed(400)).isEqualTo(250);
  }

  @Test
  void theLength_isThreeChecks_andMustBeShorterThanTheTakeoverGrace() {
    assertThat(CoreLease.lengthFor(Duration.ofMillis(200))).isEqualTo(Duration.ofMillis(600));
    assertThat(CoreLease.refusal(Duration.ofMillis(200), Duration.ofMillis(1500))).isEmpty();
    assertThat(CoreLease.refusal(Duration.ofMillis(500), Duration.ofMillis(1500)))
        .hasValueSatisfying(why -> assertThat(why).startsWith("SEN-STB-010 "));
    assertThat(CoreLease.refusal(Duration.ZERO, Duration.ofMillis(1500))).isPresent();
    assertThatThrownBy(() -> new CoreLease(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
