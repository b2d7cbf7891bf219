package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DupClearingRelayTest {
  /** A PUBLISH with DUP, a body of 200 bytes (two-byte length) full of 0x3A, then a PINGREQ. */
  private static byte[] stream() {
    ByteArrayOutputStream s = new ByteArrayOutputStream();
    s.write(0x3A);
    s.write(0xC8); // 200 = 0x48 | 0x80, then 1
    s.write(0x01);
    byte[] body = new byte[200];
    Arrays.fill(body, (byte) 0x3A);
    s.writeBytes(body);
    s.write(0x3B); // PUBLISH, QoS 1, DUP, RETAIN, no body left to tell
    s.write(0x00);
    s.write(0xC0); // PINGREQ
    s.write(0x00);
    return s.toByteArray();
  }

  @Test
  void dupClearedOnEveryPublish_andOnlyInTheirFirstByte() {
    byte[] bytes = stream();
    new DupClearingRelay.Packets().clearDup(bytes, bytes.length);
    assertThat(bytes[0]).isEqualTo((byte) 0x32);
    assertThat(Arrays.copyOfRange(bytes, 3, 203)).containsOnly((byte) 0x3A);
    assertThat(bytes[203]).isEqualTo((byte) 0x33);
    assertThat(bytes[205]).isEqualTo((byte) 0xC0);
  }

  @Test
  void packetsSplitAcrossReads_readAsOneStream() {
    byte[] whole = stream();
    new DupClearingRelay.Packets().clearDup(whole, whole.length);
    for (int size = 1; size < 8; size++) {
      byte[] bytes = stream();
      DupClearingRelay.Packets packets = new DupClearingRelay.Packets();
      for (int at = 0; at < bytes.length; at += size) {
        byte[] chunk = Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + size));
        packets.clearDup(chunk, chunk.length);
        System.arraycopy(chunk, 0, bytes, at, chunk.length);
      }
      assertThat(bytes).as("read %d bytes at a time", size).isEqualTo(whole);
    }
  }
}
