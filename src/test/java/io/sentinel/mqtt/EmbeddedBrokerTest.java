package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.moquette.broker.security.IAuthorizatorPolicy;
import io.moquette.broker.subscriptions.Topic;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EmbeddedBrokerTest {
  @Test
  void emptyClientId_acceptedAsMosquittoPubSendsIt() throws Exception {
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0);
        Socket s = new Socket("127.0.0.1", broker.port())) {
      OutputStream out = s.getOutputStream();
      // CONNECT, MQTT 3.1.1, clean session, keep-alive 10 s, a zero-length client id.
      out.write(new byte[] {0x10, 12, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 10, 0, 0});
      s.setSoTimeout(5000);
      InputStream in = s.getInputStream();
      byte[] connack = in.readNBytes(4);
      assertThat(connack[0]).isEqualTo((byte) 0x20);
      assertThat(connack[3]).as("return code: accepted").isZero();
    }
  }

  /**
   * A PUBLISH whose variable header arrives in two reads is taken once the rest arrives (Netty
   * 4.1.133's decoder took it for a too-long message and closed the connection: the gateway's burst
   * on reconnect was refused at random; netty/netty#16776).
   */
  @Test
  void publishSplitInsideItsTopic_acknowledged() throws Exception {
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0);
        Socket s = new Socket("127.0.0.1", broker.port())) {
      s.setTcpNoDelay(true);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      byte[] id = "split".getBytes(StandardCharsets.UTF_8);
      out.write(new byte[] {0x10, (byte) (12 + id.length), 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 10});
      out.write(new byte[] {0, (byte) id.length});
      out.write(id);
      out.flush();
      assertThat(in.readNBytes(4)).containsExactly(0x20, 2, 0, 0);

      // PUBLISH, QoS 1, packet id 7: fixed header and half the topic, a pause, then the rest.
      byte[] topic = "sentinel/split/commands/zone.1.vent".getBytes(StandardCharsets.UTF_8);
      byte[] payload = "{\"value\":true}".getBytes(StandardCharsets.UTF_8);
      java.io.ByteArrayOutputStream packet = new java.io.ByteArrayOutputStream();
      packet.write(0x32);
      packet.write(2 + topic.length + 2 + payload.length);
      packet.write(0);
      packet.write(topic.length);
      packet.write(topic);
      packet.write(new byte[] {0, 7});
      packet.write(payload);
      byte[] bytes = packet.toByteArray();
      int cut = 4 + topic.length / 2;
      out.write(bytes, 0, cut);
      out.flush();
      Thread.sleep(300);
      out.write(bytes, cut, bytes.length - cut);
      out.flush();
      assertThat(in.readNBytes(4)).as("PUBACK of packet 7").containsExactly(0x40, 2, 0, 7);
    }
  }

  @Test
  void portTaken_failsNamingBothWaysOut() {
    try (EmbeddedBroker first = EmbeddedBroker.start("127.0.0.1", 0)) {
      assertThatThrownBy(() -> EmbeddedBroker.start("127.0.0.1", first.port()))
          .isInstanceOf(EmbeddedBroker.PortInUseException.class)
          .hasMessageContaining("SEN-010")
          .hasMessageContaining("SENTINEL_MQTT_URL=tcp://127.0.0.1:" + first.port())
          .hasMessageContaining("sentinel.mqtt.embedded-port");
    }
  }

  /**
   * A command that throws ends Moquette's session loop for good, and every client of that loop got
   * no CONNACK or PUBACK any more (CI: a half-dead broker after a quick reconnect). The broker now
   * starts again on its port, and the same client id is served again.
   */
  @Test
  void aSessionLoopThatFails_theBrokerStartsAgain_andServesThatClientAgain() throws Exception {
    IAuthorizatorPolicy failsOnBoom =
        new IAuthorizatorPolicy() {
          @Override
          public boolean canWrite(Topic topic, String user, String client) {
            if (topic.toString().equals("boom")) {
              throw new IllegalStateException("a defect in a session command");
            }
            return true;
          }

          @Override
          public boolean canRead(Topic topic, String user, String client) {
            return true;
          }
        };
    try (EmbeddedBroker broker =
        EmbeddedBroker.start("127.0.0.1", 0, (topic, payload) -> {}, failsOnBoom)) {
      try (Socket s = connect(broker.port(), "loop")) {
        publishQos1(s, "boom", 1);
      }
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
      while (true) {
        try (Socket s = connect(broker.port(), "loop")) {
          publishQos1(s, "fine", 2);
          assertThat(s.getInputStream().readNBytes(4)).as("PUBACK").containsExactly(0x40, 2, 0, 2);
          break;
        } catch (java.io.IOException e) {
          if (System.nanoTime() > deadline) {
            throw e; // no CONNACK or PUBACK: the client's loop is dead
          }
          Thread.sleep(200);
        }
      }
      assertThat(broker.restarts()).isEqualTo(1);
    }
  }

  /**
   * A client sending again after a reconnect sets DUP; Moquette 0.17 took that for its own retry,
   * routed the message to no one and, with a subscriber on the topic, ended its session loop
   * ({@code increment: 0}). The door clears the flag: the message arrives and is acknowledged.
   */
  @Test
  void publishSentAgainWithDup_deliveredAndAcknowledged() throws Exception {
    try (EmbeddedBroker broker = EmbeddedBroker.start("127.0.0.1", 0);
        Socket subscriber = connect(broker.port(), "subscriber");
        Socket publisher = connect(broker.port(), "publisher")) {
      OutputStream sub = subscriber.getOutputStream();
      // SUBSCRIBE, packet id 1, topic "dup/t" at QoS 1.
      sub.write(new byte[] {(byte) 0x82, 10, 0, 1, 0, 5, 'd', 'u', 'p', '/', 't', 1});
      sub.flush();
      assertThat(subscriber.getInputStream().readNBytes(5)).containsExactly(0x90, 3, 0, 1, 1);

      // PUBLISH, QoS 1, DUP, packet id 9.
      byte[] t = "dup/t".getBytes(StandardCharsets.UTF_8);
      OutputStream out = publisher.getOutputStream();
      out.write(new byte[] {0x3A, (byte) (2 + t.length + 2 + 1), 0, (byte) t.length});
      out.write(t);
      out.write(new byte[] {0, 9, 'x'});
      out.flush();
      assertThat(publisher.getInputStream().readNBytes(4))
          .as("PUBACK")
          .containsExactly(0x40, 2, 0, 9);
      byte[] delivered = subscriber.getInputStream().readNBytes(2 + 2 + t.length + 2 + 1);
      assertThat(delivered[0] & 0xF0).as("a PUBLISH").isEqualTo(0x30);
      assertThat(delivered[delivered.length - 1]).isEqualTo((byte) 'x');
    }
  }

  /**
   * Moquette 0.17 queues each PUBLISH for its client's session loop and, when that queue is full,
   * drops it unrouted and unacknowledged, logging a WARN (its default queue holds 1,024): a client
   * publishing faster than its loop routes lost hundreds of samples of 15,000 in GatewayCrashIT.
   * Here the loop is held by a first publish while 5,000 more arrive: every one is routed once the
   * loop goes on (1,018 to 1,466 were, with the default queue).
   */
  @Test
  void aLoopThatLags_queuesWhatArrives_andRoutesEveryPublish() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    IAuthorizatorPolicy holdsTheFirst =
        new IAuthorizatorPolicy() {
          @Override
          public boolean canWrite(Topic topic, String user, String client) {
            if (topic.toString().equals("hold")) {
              held.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return true;
          }

          @Override
          public boolean canRead(Topic topic, String user, String client) {
            return true;
          }
        };
    int burst = 5_000;
    java.util.concurrent.atomic.AtomicInteger routed =
        new java.util.concurrent.atomic.AtomicInteger();
    try (EmbeddedBroker broker =
            EmbeddedBroker.start(
                "127.0.0.1",
                0,
                (topic, payload) -> {
                  if (topic.equals("burst/t")) {
                    routed.incrementAndGet();
                  }
                },
                holdsTheFirst);
        Socket s = connect(broker.port(), "burst")) {
      publishQos1(s, "hold", 1);
      assertThat(held.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      for (int i = 2; i <= burst + 1; i++) {
        publishQos1(s, "burst/t", i);
      }
      Thread.sleep(500); // the broker's reading side has queued the burst behind the held loop
      release.countDown();
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
      while (routed.get() < burst && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      Thread.sleep(200); // none more than the burst
      assertThat(routed.get()).as("publishes routed").isEqualTo(burst);
    }
  }

  /** A connected socket with {@code clientId} (clean session), past its CONNACK. */
  private static Socket connect(int port, String clientId) throws java.io.IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout(3000);
    byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
    OutputStream out = s.getOutputStream();
    out.write(new byte[] {0x10, (byte) (12 + id.length), 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 10});
    out.write(new byte[] {0, (byte) id.length});
    out.write(id);
    out.flush();
    byte[] connack = s.getInputStream().readNBytes(4);
    if (connack.length < 4 || connack[0] != 0x20 || connack[3] != 0) {
      s.close();
      throw new java.io.IOException("no CONNACK");
    }
    return s;
  }

  private static void publishQos1(Socket s, String topic, int packetId) throws java.io.IOException {
    byte[] t = topic.getBytes(StandardCharsets.UTF_8);
    OutputStream out = s.getOutputStream();
    out.write(new byte[] {0x32, (byte) (2 + t.length + 2 + 1), 0, (byte) t.length});
    out.write(t);
    out.write(new byte[] {(byte) (packetId >> 8), (byte) packetId, 'x'});
    out.flush();
  }
}
