package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.MqttConnection.Delivery;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.store.RedeliveryTail;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Matching messages delivered again after a crash against the log's tail (docs/live.md). */
class RedeliveryTest {
  private static final Instant T = Instant.parse("2026-12-01T20:00:00Z");
  private static final Delivery BACKLOG = new Delivery(false, true);
  private static final String SOURCE = "mqtt:sentinel/site/points/load";

  private static String key(double v) {
    return RedeliveryTail.key(SOURCE, "load", Value.of(v), Optional.empty());
  }

  private static Redelivery logged(double... values) {
    return new Redelivery(
        new RedeliveryTail.Tail(
            7, java.util.Arrays.stream(values).mapToObj(RedeliveryTest::key).toList()));
  }

  private static boolean deliver(Redelivery r, Delivery d, double... values) {
    List<Sample> samples =
        java.util.Arrays.stream(values).mapToObj(v -> Sample.live("load", Value.of(v), T)).toList();
    return r.repeats(SOURCE, samples, Optional.empty(), d, () -> {});
  }

  @Test
  void eachLoggedSampleStandsForOneRepeat_aNewMessageIsTaken_andTheMatchingGoesOn() {
    Redelivery r = logged(1, 2, 3, 4);
    assertThat(deliver(r, BACKLOG, 3)).isTrue();
    assertThat(deliver(r, BACKLOG, 5)).as("never logged").isFalse();
    assertThat(deliver(r, BACKLOG, 4)).as("a repeat behind a new message").isTrue();
    assertThat(deliver(r, BACKLOG, 4)).as("4 used up").isFalse();
    assertThat(r.repeats()).isEqualTo(2);
  }

  @Test
  void outOfOrder_asMosquittoSendsWhatItHeldBehindLaterMessages_isStillARepeat() {
    Redelivery r = logged(1, 2, 3, 4);
    assertThat(deliver(r, BACKLOG, 4)).isTrue();
    assertThat(deliver(r, BACKLOG, 2)).isTrue();
    assertThat(deliver(r, BACKLOG, 1)).isTrue();
    assertThat(deliver(r, BACKLOG, 3)).isTrue();
    assertThat(deliver(r, BACKLOG, 3)).as("every logged sample used up: over").isFalse();
  }

  @Test
  void repeatedContent_isCounted_andAMessageOfSeveralSamplesNeedsEachOfThem() {
    Redelivery r = logged(5, 5, 6);
    assertThat(deliver(r, BACKLOG, 5, 5, 5)).as("three 5s, two logged").isFalse();
    assertThat(deliver(r, BACKLOG, 5, 6)).isTrue();
    assertThat(deliver(r, BACKLOG, 6)).as("6 used up").isFalse();
    assertThat(deliver(r, BACKLOG, 5)).isTrue();
  }

  @Test
  void aRepeat_isAcknowledgedAfterTheNewestSampleOfItsContent() {
    List<Integer> waitedFor = new java.util.ArrayList<>();
    Redelivery r =
        new Redelivery(
            java.util.stream.Stream.of(7.0, 8.0, 7.0).map(RedeliveryTest::key).toList(),
            (position, ack) -> waitedFor.add(position));
    List<Sample> seven = List.of(Sample.live("load", Value.of(7), T));
    assertThat(r.repeats(SOURCE, seven, Optional.empty(), BACKLOG, () -> {})).isTrue();
    assertThat(waitedFor).as("which 7 it repeats is not known: the later one").containsExactly(2);
  }

  @Test
  void aLiveMessage_endsMatching_aRetainedOneNeitherMatchesNorEnds() {
    Redelivery r = logged(1, 2, 3);
    assertThat(deliver(r, new Delivery(true, true), 2)).isFalse();
    assertThat(deliver(r, BACKLOG, 2)).isTrue();
    assertThat(deliver(r, Delivery.LIVE, 3)).as("after the backlog: new").isFalse();
    assertThat(deliver(r, BACKLOG, 3)).isFalse();
  }

  @Test
  void anotherTopicOrDeviceTime_isAnotherSample() {
    Redelivery r = logged(1, 2);
    List<Sample> one = List.of(Sample.live("load", Value.of(1), T));
    assertThat(r.repeats("mqtt:other", one, Optional.empty(), BACKLOG, () -> {})).isFalse();
    Redelivery timed =
        new Redelivery(
            new RedeliveryTail.Tail(
                7, List.of(RedeliveryTail.key(SOURCE, "load", Value.of(1), Optional.of(T)))));
    assertThat(timed.repeats(SOURCE, one, Optional.of(T.plusMillis(1)), BACKLOG, () -> {}))
        .isFalse();
  }

  @Test
  void noTail_matchesNothing() {
    assertThat(deliver(Redelivery.NONE, BACKLOG, 1)).isFalse();
    assertThat(deliver(new Redelivery(RedeliveryTail.Tail.NONE), BACKLOG, 1)).isFalse();
  }
}
