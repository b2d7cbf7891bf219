package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.MqttConnection.Delivery;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A reconnect of the same process: what the broker delivers again is matched against the messages
 * taken on the connection before, and a repeat is acknowledged only once the message it repeats is
 * durable (docs/live.md, "Messages delivered again after a reconnect").
 */
class RecentMessagesTest {
  private static final Instant T = Instant.parse("2026-12-02T15:00:00Z");
  private static final Delivery BACKLOG = new Delivery(false, true);
  private static final String SOURCE = "mqtt:sentinel/site/points/load";

  private final RecentMessages recent = new RecentMessages();

  {
    recent.connected();
  }

  private final List<String> acknowledged = new ArrayList<>();

  /** Takes a message; returns what the engine runs once its pass is durable. */
  private Runnable take(String name, double value) {
    return recent.taken(SOURCE, samples(value), Optional.empty(), () -> acknowledged.add(name));
  }

  private static List<Sample> samples(double value) {
    return List.of(Sample.live("load", Value.of(value), T));
  }

  private boolean deliverAgain(Redelivery r, String name, double value) {
    return r.repeats(
        SOURCE, samples(value), Optional.empty(), BACKLOG, () -> acknowledged.add(name));
  }

  /** The connection ends, and the next finds the session. */
  private Redelivery reconnect() {
    recent.connectionLost();
    recent.connected();
    return recent.redelivery();
  }

  @Test
  void aRepeatOfAMessageNotYetDurable_isAcknowledgedOnlyOnceItIs() {
    Runnable first = take("1", 1);
    Runnable second = take("2", 2);
    first.run();
    Redelivery again = reconnect();

    assertThat(deliverAgain(again, "1 again", 1)).isTrue();
    assertThat(deliverAgain(again, "2 again", 2)).isTrue();
    assertThat(acknowledged).containsExactly("1", "1 again");

    second.run();
    assertThat(acknowledged).containsExactly("1", "1 again", "2", "2 again");
    assertThat(deliverAgain(again, "3", 3)).as("never taken: new").isFalse();
  }

  @Test
  void aMessageOfSeveralSamples_isMatchedByAllOfThem() {
    List<Sample> three =
        List.of(
            Sample.live("load", Value.of(1), T),
            Sample.live("flow", Value.of(2), T),
            Sample.live("temp", Value.of(3), T));
    recent.taken(SOURCE, three, Optional.empty(), () -> acknowledged.add("three")).run();
    Redelivery again = reconnect();

    List<Sample> otherLast =
        List.of(three.get(0), three.get(1), Sample.live("temp", Value.of(4), T));
    assertThat(again.repeats(SOURCE, otherLast, Optional.empty(), BACKLOG, () -> {}))
        .as("one sample differs: new")
        .isFalse();
    assertThat(
            again.repeats(
                SOURCE, three, Optional.empty(), BACKLOG, () -> acknowledged.add("three again")))
        .isTrue();
    assertThat(acknowledged).containsExactly("three", "three again");
  }

  @Test
  void repeatedContent_waitsForTheLatestMessageItMayRepeat() {
    Runnable a = take("a", 5);
    Runnable b = take("b", 5);
    Redelivery again = reconnect();

    assertThat(deliverAgain(again, "5 again", 5)).as("a or b").isTrue();
    a.run();
    assertThat(acknowledged).as("b may be the one repeated").containsExactly("a");
    b.run();
    assertThat(acknowledged).containsExactly("a", "b", "5 again");
  }

  @Test
  void theFirstConnect_hasNothingTaken_andAMessageWithoutSamplesIsNotKept() {
    AtomicInteger acks = new AtomicInteger();
    Runnable ack = acks::incrementAndGet;
    assertThat(recent.redelivery()).as("nothing taken: the journal's tail is matched").isNull();
    assertThat(recent.taken(SOURCE, List.of(), Optional.empty(), ack)).isSameAs(ack);
    assertThat(recent.redelivery()).isNull();
  }

  @Test
  void aMessageAcknowledgedLongBeforeTheLoss_isNotExpectedAgain_oneAcknowledgedAfterItIs()
      throws Exception {
    take("early", 1).run();
    Thread.sleep(RecentMessages.IN_FLIGHT / 1_000_000 + 200);
    take("recent", 2).run();
    Runnable late = take("late", 3);
    recent.connectionLost();
    late.run(); // durable after the loss: its PUBACK went nowhere
    recent.connected();
    Redelivery again = recent.redelivery();
    assertThat(deliverAgain(again, "3 again", 3)).isTrue();
    assertThat(deliverAgain(again, "2 again", 2)).as("handed over just before the loss").isTrue();
    assertThat(deliverAgain(again, "1 again", 1)).as("surely at the broker: new").isFalse();
  }

  @Test
  void aFailedReconnectIsNoNewLoss() {
    Runnable m = take("m", 1);
    recent.connectionLost();
    recent.connectionLost();
    m.run();
    recent.connected();
    assertThat(deliverAgain(recent.redelivery(), "1 again", 1)).isTrue();
  }

  @Test
  void durableMessagesAreKeptOnlyToABound() {
    for (int i = 0; i < RecentMessages.DURABLE_KEPT + 100; i++) {
      take("d" + i, i).run();
    }
    assertThat(deliverAgain(reconnect(), "dropped", 0))
        .as("the oldest durable one let go")
        .isFalse();
    assertThat(deliverAgain(reconnect(), "kept", 100)).as("the oldest kept").isTrue();
    assertThat(acknowledged).endsWith("kept");
  }
}
