package io.sentinel.gpio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.pi4j.context.Context;
import com.pi4j.io.gpio.digital.DigitalOutput;
import com.pi4j.io.gpio.digital.DigitalState;
import com.pi4j.plugin.mock.provider.gpio.digital.MockDigitalInput;
import io.sentinel.command.Command;
import io.sentinel.command.YamlRegistry;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import io.sentinel.point.Value;
import io.sentinel.rule.Band;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The adapter on Pi4J's mock platform: pins, polarity, debounce, pulses and safe states. */
class GpioAdapterTest {
  private static final Duration WAIT = Duration.ofSeconds(5);

  private static final Registry REGISTRY =
      YamlRegistry.of(
          """
          points:
            demand: { type: bool, direction: in, source: { gpio: { pin: 22, pull: down } } }
            reed:   { type: bool, direction: in,
                      source: { gpio: { pin: 6, pull: up, debounce: 100ms, active_low: true } } }
            pump:   { type: bool, direction: out, driver: { gpio: { pin: 17 } }, release_value: false }
            fan:    { type: bool, direction: out, driver: { gpio: { pin: 18, active_low: true } } }
            vent:   { type: bool, direction: out, driver: { gpio: { pin: 19 } }, release_value: true }
            strike: { type: bool, direction: out, driver: { gpio: { pin: 27 } }, pulse_max: 600ms }
            lamp:   { type: bool, direction: out, driver: { mqtt: {} } }
          """);

  private final Recorder recorder = new Recorder();
  private GpioAdapter adapter;

  @AfterEach
  void close() {
    if (adapter != null) {
      adapter.close();
    }
  }

  @Test
  void open_everyOutputInItsSafeState_activeLowHeldHigh() {
    adapter = mock();

    assertThat(adapter.open(WAIT)).isTrue();

    assertThat(pin(17)).isEqualTo(DigitalState.LOW); // release_value false
    assertThat(pin(18)).isEqualTo(DigitalState.HIGH); // off, active low
    assertThat(pin(19)).isEqualTo(DigitalState.HIGH); // release_value true
    assertThat(pin(27)).isEqualTo(DigitalState.LOW);
    assertThat(adapter.ready()).isTrue();
    assertThat(recorder.readiness.get()).isEqualTo(1);
    assertThat(GpioAdapter.drives(REGISTRY.find("lamp").orElseThrow())).isFalse();
  }

  @Test
  void inputs_reportTheirLevelAtStart_thenEveryEdge() {
    adapter = mock();
    adapter.open(WAIT);
    adapter.startInputs();
    await().atMost(WAIT).until(() -> recorder.samples.size() == 2);
    assertThat(recorder.samples)
        .extracting(Sample::pointId, Sample::value)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("demand", Value.FALSE),
            org.assertj.core.groups.Tuple.tuple("reed", Value.TRUE)); // low, active low: closed

    input(22).mockState(DigitalState.HIGH);

    await().atMost(WAIT).until(() -> recorder.samples.size() == 3);
    Sample edge = recorder.samples.get(2);
    assertThat(edge.pointId()).isEqualTo("demand");
    assertThat(edge.value()).isEqualTo(Value.TRUE);
    assertThat(recorder.sources).contains("gpio:22");
  }

  @Test
  void inputs_bouncesShorterThanTheDebounce_reportOnlyTheLevelThatHeld() throws Exception {
    adapter = mock();
    adapter.open(WAIT);
    adapter.startInputs();
    await().atMost(WAIT).until(() -> recorder.samples.size() == 2);

    MockDigitalInput reed = input(6);
    long t0 = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      reed.mockState(DigitalState.HIGH);
      Thread.sleep(10);
      reed.mockState(DigitalState.LOW);
      Thread.sleep(10);
    }
    reed.mockState(DigitalState.HIGH); // the reed opens and stays open

    await().atMost(WAIT).until(() -> recorder.samples.size() == 3);
    Thread.sleep(300);
    assertThat(recorder.samples).hasSize(3);
    assertThat(recorder.samples.get(2).pointId()).isEqualTo("reed");
    assertThat(recorder.samples.get(2).value()).isEqualTo(Value.FALSE);
    assertThat(Duration.ofNanos(recorder.sampleNanos.get(2) - t0)).isGreaterThan(ms(200));
  }

  @Test
  void commands_driveTheRelay_activeLowInverted_releaseToTheSafeState() {
    adapter = mock();
    adapter.open(WAIT);

    adapter.send(command("pump", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    adapter.send(command("fan", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    await().atMost(WAIT).until(() -> recorder.delivered.size() == 2);
    assertThat(pin(17)).isEqualTo(DigitalState.HIGH);
    assertThat(pin(18)).isEqualTo(DigitalState.LOW);

    adapter.send(command("vent", Value.FALSE, Command.Kind.ASSERT, Duration.ZERO));
    adapter.send(command("vent", Value.ABSENT, Command.Kind.RELEASE, Duration.ZERO));
    await().atMost(WAIT).until(() -> recorder.delivered.size() == 4);
    assertThat(pin(19)).isEqualTo(DigitalState.HIGH);
    assertThat(recorder.failed).isEmpty();
  }

  @Test
  void pulse_isOnForItsDuration_endedByTheAdapterEvenWithoutAPulseOff() throws Exception {
    adapter = mock();
    adapter.open(WAIT);
    PinLog strike = PinLog.of(adapter.context(), 27);

    adapter.send(command("strike", Value.TRUE, Command.Kind.PULSE_ON, ms(300)));

    await().atMost(WAIT).until(() -> strike.changes() == 2);
    assertThat(strike.energised()).isBetween(ms(280), ms(450));
    assertThat(pin(27)).isEqualTo(DigitalState.LOW);
    // A pulse that ends when asked is no cut; nor is one of exactly pulse_max.
    adapter.send(command("strike", Value.TRUE, Command.Kind.PULSE_ON, ms(600)));
    await().atMost(WAIT).until(() -> strike.changes() == 4);
    Thread.sleep(100); // the adapter's thread reports a cut right after the pin changes
    assertThat(recorder.cuts).isEmpty();
  }

  @Test
  void pulseMax_aClaimHoldingTheStrikeTrue_isCutAtPulseMax() throws Exception {
    adapter = mock();
    adapter.open(WAIT);
    PinLog strike = PinLog.of(adapter.context(), 27);

    adapter.send(command("strike", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    Thread.sleep(300);
    adapter.send(command("strike", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));

    await().atMost(WAIT).until(() -> strike.changes() == 2);
    assertThat(strike.energised()).isBetween(ms(580), ms(750));
    Thread.sleep(300);
    assertThat(pin(27)).isEqualTo(DigitalState.LOW);
    // Said, with the point and the durations: held on with no end of its own.
    assertThat(recorder.cuts)
        .singleElement()
        .satisfies(
            cut -> {
              assertThat(cut.pointId()).isEqualTo("strike");
              assertThat(cut.pin()).isEqualTo(27);
              assertThat(cut.pulseMax()).isEqualTo(ms(600));
              assertThat(cut.energised()).isBetween(ms(580), ms(750));
              assertThat(cut.asked()).isEmpty();
              assertThat(cut.message())
                  .startsWith("strike (pin 27) de-energised by the GPIO adapter at its pulse_max")
                  .contains("pulse_max 600 ms", "asked to stay on");
            });
  }

  @Test
  void pulseMax_aSecondPulseDuringAPulse_extendsButNeverPastPulseMax() throws Exception {
    adapter = mock();
    adapter.open(WAIT);
    PinLog strike = PinLog.of(adapter.context(), 27);

    adapter.send(command("strike", Value.TRUE, Command.Kind.PULSE_ON, ms(400)));
    Thread.sleep(300);
    adapter.send(command("strike", Value.TRUE, Command.Kind.PULSE_ON, ms(500)));

    await().atMost(WAIT).until(() -> strike.changes() == 2);
    // 300 + 500 asked, 600 allowed from the first energising
    assertThat(strike.energised()).isBetween(ms(580), ms(750));
    await().atMost(WAIT).until(() -> recorder.cuts.size() == 1);
    PulseCut cut = recorder.cuts.get(0);
    assertThat(cut.asked().orElseThrow()).isBetween(ms(780), ms(950));
    assertThat(cut.message()).contains("asked " + cut.asked().get().toMillis() + " ms");
  }

  @Test
  void close_everyOutputBackToItsSafeState() {
    adapter = mock();
    adapter.open(WAIT);
    adapter.send(command("pump", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    adapter.send(command("vent", Value.FALSE, Command.Kind.ASSERT, Duration.ZERO));
    await().atMost(WAIT).until(() -> recorder.delivered.size() == 2);
    Context context = adapter.context();
    DigitalOutput pump = context.io(GpioAdapter.ioId(17), DigitalOutput.class);
    DigitalOutput vent = context.io(GpioAdapter.ioId(19), DigitalOutput.class);
    assertThat(pump.state()).isEqualTo(DigitalState.HIGH);

    adapter.close();

    assertThat(pump.state()).isEqualTo(DigitalState.LOW);
    assertThat(vent.state()).isEqualTo(DigitalState.HIGH);
    assertThat(adapter.ready()).isFalse();
    assertThat(context.isShutdown()).isTrue();
  }

  @Test
  void engineLost_noAnswerWithinTheTimeout_outputsSafeAndNoCommandTaken() {
    adapter = mock();
    adapter.open(WAIT);
    adapter.send(command("pump", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    await().atMost(WAIT).until(() -> recorder.delivered.size() == 1);
    AtomicInteger pings = new AtomicInteger();
    CompletableFuture<Object> answered = CompletableFuture.completedFuture(null);

    CompletableFuture<Void> told = new CompletableFuture<>();
    adapter.watchEngine(
        () -> pings.incrementAndGet() < 3 ? answered : new CompletableFuture<>(),
        ms(400),
        () -> told.complete(null));

    await().atMost(WAIT).until(() -> !adapter.ready());
    await().atMost(WAIT).until(told::isDone);
    assertThat(pin(17)).isEqualTo(DigitalState.LOW);
    assertThat(recorder.readiness.get()).isEqualTo(2);
    adapter.send(command("pump", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    await().atMost(WAIT).until(() -> recorder.failed.size() == 1);
    assertThat(pin(17)).isEqualTo(DigitalState.LOW);
  }

  @Test
  void engineLost_afterAFatalError_everyOutputSafe() {
    adapter = mock();
    adapter.open(WAIT);
    adapter.send(command("fan", Value.TRUE, Command.Kind.ASSERT, Duration.ZERO));
    await().atMost(WAIT).until(() -> recorder.delivered.size() == 1);

    adapter.engineLost("the engine failed: java.lang.OutOfMemoryError");

    await().atMost(WAIT).until(() -> pin(18) == DigitalState.HIGH);
    assertThat(adapter.engineWasLost()).isTrue();
  }

  @Test
  void platformNotUp_notReady_untilItOpens_thenSafeAndReady() {
    AtomicInteger attempts = new AtomicInteger();
    adapter =
        new GpioAdapter(
            REGISTRY,
            GpioPlatform.MOCK,
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("/dev/gpiochip0: permission denied");
              }
              return GpioPlatform.MOCK.newContext();
            },
            recorder,
            InstantSource.system(),
            ms(100));

    assertThat(adapter.open(WAIT)).isFalse();
    assertThat(adapter.ready()).isFalse();

    await().atMost(WAIT).until(adapter::ready);
    // ready is set on the adapter's thread just before it tells the listener.
    await().atMost(WAIT).until(() -> recorder.readiness.get() >= 1);
    assertThat(attempts.get()).isEqualTo(3);
    assertThat(recorder.readiness.get()).isEqualTo(1);
    assertThat(pin(19)).isEqualTo(DigitalState.HIGH);
  }

  @Test
  void platformSetting_autoIsMockWithoutAGpiochip_gpiodWithOne_unknownIsAnError(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dev) throws Exception {
    assertThat(GpioPlatform.choose("auto", dev).orElseThrow().platform())
        .isEqualTo(GpioPlatform.MOCK);
    java.nio.file.Files.createFile(dev.resolve("gpiochip0"));
    assertThat(GpioPlatform.choose("auto", dev).orElseThrow().platform())
        .isEqualTo(GpioPlatform.GPIOD);
    assertThat(GpioPlatform.choose("MOCK", dev).orElseThrow().platform())
        .isEqualTo(GpioPlatform.MOCK);
    assertThat(GpioPlatform.choose("off", dev)).isEmpty();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> GpioPlatform.choose("pigpio", dev))
        .hasMessageContaining("sentinel.gpio.platform is 'pigpio': it is auto, gpiod, mock or off");
  }

  private GpioAdapter mock() {
    return new GpioAdapter(REGISTRY, GpioPlatform.MOCK, recorder, InstantSource.system(), ms(100));
  }

  private DigitalState pin(int pin) {
    return adapter.context().io(GpioAdapter.ioId(pin), DigitalOutput.class).state();
  }

  private MockDigitalInput input(int pin) {
    return adapter.context().io(GpioAdapter.ioId(pin), MockDigitalInput.class);
  }

  private static int seq;

  private static Command command(String point, Value v, Command.Kind kind, Duration length) {
    return new Command(
        point + "/test/" + ++seq,
        point,
        v,
        Optional.of(Band.AUTOMATION),
        Optional.of("r"),
        kind,
        Instant.now(),
        length);
  }

  private static Duration ms(long ms) {
    return Duration.ofMillis(ms);
  }

  private static final class Recorder implements GpioAdapter.Listener {
    final List<String> delivered = new CopyOnWriteArrayList<>();
    final List<String> failed = new CopyOnWriteArrayList<>();
    final List<Sample> samples = new CopyOnWriteArrayList<>();
    final List<Long> sampleNanos = new CopyOnWriteArrayList<>();
    final List<String> sources = new CopyOnWriteArrayList<>();
    final AtomicInteger readiness = new AtomicInteger();
    final List<PulseCut> cuts = new CopyOnWriteArrayList<>();

    @Override
    public void pulseCut(PulseCut cut) {
      cuts.add(cut);
    }

    @Override
    public void delivered(String commandId) {
      delivered.add(commandId);
    }

    @Override
    public void failed(String commandId, Throwable cause) {
      failed.add(commandId);
    }

    @Override
    public void readinessChanged() {
      readiness.incrementAndGet();
    }

    @Override
    public void sample(Sample sample, String source) {
      sampleNanos.add(System.nanoTime());
      samples.add(sample);
      sources.add(source);
    }
  }
}
