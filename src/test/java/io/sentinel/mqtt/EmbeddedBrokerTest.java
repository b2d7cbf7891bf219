package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
