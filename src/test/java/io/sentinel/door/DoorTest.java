package io.sentinel.door;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DoorTest {
  private static final Instant AT = Instant.parse("2026-12-01T10:00:00Z");

  private static Flaw flawOf(Runnable r) {
    try {
      r.run();
    } catch (Refusal e) {
      return e.flaw();
    }
    return null;
  }

  @Test
  void strictUtf8_refusesOverlongSurrogatesAndBeyondTheLastCodePoint() {
    assertThat(Door.utf8("żółw 🐢".getBytes(StandardCharsets.UTF_8), "b")).isEqualTo("żółw 🐢");
    for (byte[] bad :
        new byte[][] {
          {(byte) 0xC0, (byte) 0xAF},
          {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
          {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
          {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
          {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
          {'a', (byte) 0xE2, (byte) 0x82}
        }) {
      assertThat(flawOf(() -> Door.utf8(bad, "b"))).isEqualTo(Flaw.BAD_ENCODING);
    }
    assertThatThrownBy(() -> Door.utf8(new byte[] {'a', 'b', (byte) 0xC0, (byte) 0xAF}, "body"))
        .hasMessageContaining("C0 at byte 2");
  }

  @Test
  void aLine_refusesEveryControlCharacterAndLoneSurrogates_textAllowsLineBreaks() {
    for (String bad :
        new String[] {"a\u0000", "\u001b[2J", "x\n", "\u007f", "\u0085", "\ud800", "\udc00x"}) {
      assertThat(flawOf(() -> Door.line(bad, "f"))).as(bad).isEqualTo(Flaw.CONTROL_CHARACTER);
    }
    assertThat(Door.line("ok 🐢 é", "f")).isEqualTo("ok 🐢 é");
    assertThat(Door.text("one\n\ttwo\r\n", "f")).isEqualTo("one\n\ttwo\r\n");
    assertThat(flawOf(() -> Door.text("a\u0000", "f"))).isEqualTo(Flaw.CONTROL_CHARACTER);
  }

  @Test
  void printable_escapesControlCharacters_andClips() {
    assertThat(Door.printable("a\u001b[31m\u0000b", 100)).isEqualTo("a\\u001b[31m\\u0000b");
    assertThat(Door.printable("x".repeat(50), 10)).isEqualTo("x".repeat(10) + "…");
    assertThat(Door.printable("\ud83d\udc22", 10)).isEqualTo("🐢");
  }

  @Test
  void deviceTime_insideTheWindowOnly() {
    assertThat(Door.deviceTime("2026-12-01T09:00:00Z", AT, "ts"))
        .isEqualTo(Instant.parse("2026-12-01T09:00:00Z"));
    for (Object bad :
        new Object[] {
          "+294277-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2026-12-02T10:00:01Z", 5, "now"
        }) {
      assertThat(flawOf(() -> Door.deviceTime(bad, AT, "ts")))
          .as("%s", bad)
          .isEqualTo(Flaw.BAD_TIMESTAMP);
    }
  }

  @Test
  void queryTime_insideYearsOneTo9999() {
    assertThat(flawOf(() -> Door.queryTime(Instant.parse("+294277-01-01T00:00:00Z"), "from")))
        .isEqualTo(Flaw.BAD_TIMESTAMP);
    assertThat(Door.queryTime(AT, "from")).isEqualTo(AT);
  }

  @Test
  void finite() {
    assertThat(flawOf(() -> Door.finite(Double.POSITIVE_INFINITY, "v", "")))
        .isEqualTo(Flaw.NOT_FINITE);
    assertThat(flawOf(() -> Door.finite(Double.NaN, "v", ""))).isEqualTo(Flaw.NOT_FINITE);
    assertThat(Door.finite(1e304, "v", "")).isEqualTo(1e304);
  }
}
