package io.sentinel.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sentinel.passlog.CommandIntent;
import io.sentinel.passlog.LogWindow;
import io.sentinel.passlog.LoggedObservation;
import io.sentinel.passlog.Observation;
import io.sentinel.point.Quality;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PassLogJsonTest {
  static final Instant T = Instant.parse("2026-11-02T05:00:00.137Z");

  static LogWindow read(String text) throws Exception {
    return PassLogJson.read("window.ndjson", new BufferedReader(new StringReader(text)));
  }

  @Test
  void aWindow_readsBackAsItWasWritten() throws Exception {
    LogWindow w =
        new LogWindow(
            Optional.of("example"),
            Optional.of(T),
            Optional.of(T.plusSeconds(60)),
            List.of(
                new LoggedObservation(
                    7,
                    new Observation(
                        "boiler.ch1.flow-temp",
                        Value.of(42.5),
                        Quality.LIVE,
                        "mqtt:zigbee2mqtt/boiler-flow",
                        Optional.of(T.minusMillis(40)),
                        T)),
                new LoggedObservation(
                    8,
                    new Observation(
                        "door.main.closed",
                        Value.TRUE,
                        Quality.LIVE,
                        "gpio:5",
                        Optional.empty(),
                        T)),
                new LoggedObservation(
                    9,
                    new Observation(
                        "hall.mode", Value.of("away"), Quality.BAD, "", Optional.empty(), T))),
            List.of(
                new CommandIntent(
                    T,
                    "boiler.ch1.burner",
                    CommandIntent.Kind.ASSERT,
                    Value.FALSE,
                    Optional.of("boiler-overheat-cutoff"),
                    Optional.of(Band.INTERLOCK),
                    ""),
                new CommandIntent(
                    T,
                    "boiler.ch1.pump",
                    CommandIntent.Kind.RELEASE,
                    Value.ABSENT,
                    Optional.empty(),
                    Optional.empty(),
                    "")));
    StringWriter out = new StringWriter();
    PassLogJson.write(out, w);
    assertThat(read(out.toString())).isEqualTo(w);
  }

  @Test
  void aBadLine_isNamedWithFileLineAndField() {
    String good =
        "{\"type\":\"observation\",\"seq\":1,\"point\":\"a.b\",\"value\":1,\"quality\":\"live\","
            + "\"received_at\":\"2026-11-02T05:00:00Z\"}\n";
    assertThatThrownBy(() -> read(good + good.replace("\"live\"", "\"fresh\"")))
        .hasMessage("window.ndjson:2: field 'quality' is not a quality: fresh");
    assertThatThrownBy(() -> read(good.replace("\"value\":1", "\"value\":[1]")))
        .hasMessage("window.ndjson:1: field 'value' is not a boolean, number, string or null");
    assertThatThrownBy(() -> read(good.replace("2026-11-02T05:00:00Z", "yesterday")))
        .hasMessage("window.ndjson:1: field 'received_at' is not an ISO-8601 instant: yesterday");
    assertThatThrownBy(() -> read("\n\n{\"type\":"))
        .hasMessageStartingWith("window.ndjson:3: not JSON");
    assertThatThrownBy(() -> read("{\"type\":\"claim\"}"))
        .hasMessage("window.ndjson:1: field 'type' is not window, observation or command");
  }
}
