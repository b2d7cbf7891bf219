package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
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
