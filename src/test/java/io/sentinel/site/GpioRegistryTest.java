package io.sentinel.site;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSource;
import io.sentinel.point.Registry;
import io.sentinel.site.yaml.Problem;
import io.sentinel.site.yaml.Problems;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The registry's GPIO checks: every bad entry named with file, line and code. */
class GpioRegistryTest {

  @Test
  void goodEntries_pinsPullDebounceAndPolarityAreRead() {
    Problems problems = new Problems();
    Registry r =
        RegistryLoader.load(
            "points.yaml",
            """
            points:
              door.reed: { type: bool, direction: in,
                           source: { gpio: { pin: 6, pull: up, debounce: 30ms, active_low: true } } }
              pump:      { type: bool, direction: out, driver: { gpio: { pin: 17, active_low: true } } }
              strike:    { type: bool, direction: out, driver: { gpio: { pin: 27 } }, pulse_max: 5s }
            """,
            problems);

    assertThat(problems.sorted()).isEmpty();
    assertThat(r.find("door.reed").orElseThrow().source())
        .contains(new PointSource.Gpio(6, "up", Duration.ofMillis(30), true));
    assertThat(r.find("pump").orElseThrow().driver()).contains(new PointDriver.Gpio(17, true));
    assertThat(r.find("strike").orElseThrow().pulseMax()).contains(Duration.ofSeconds(5));
  }

  @Test
  void pinOutsideTheHeader_orNotWhole_isAnErrorOnThePinsLine() {
    List<String> found =
        problems(
            """
            points:
              a: { type: bool, direction: in, source: { gpio: { pin: 28 } } }
              b: { type: bool, direction: out,
                   driver: { gpio: { pin: -1 } } }
              c: { type: bool, direction: out, driver: { gpio: { pin: 4.5 } } }
            """);

    assertThat(found)
        .containsExactly(
            "points.yaml:2: error [REG-017] point a: source.gpio pin 28 is not a Raspberry Pi GPIO"
                + " (BCM numbers 0 to 27)",
            "points.yaml:4: error [REG-017] point b: driver.gpio pin -1 is not a Raspberry Pi GPIO"
                + " (BCM numbers 0 to 27)",
            "points.yaml:5: error [REG-017] point c: driver.gpio pin 4.5 is not a Raspberry Pi"
                + " GPIO (BCM numbers 0 to 27)");
  }

  @Test
  void onePinTwice_namesTheOtherPointAndItsLine() {
    List<String> found =
        problems(
            """
            points:
              pump:   { type: bool, direction: out, driver: { gpio: { pin: 17 } } }
              burner: { type: bool, direction: out, driver: { gpio: { pin: 17 } } }
              a:      { type: bool, direction: in, source: { gpio: { pin: 5 } } }
              b:      { type: bool, direction: in, source: { gpio: { pin: 5 } } }
            """);

    assertThat(found)
        .containsExactly(
            "points.yaml:3: error [REG-018] point burner: gpio pin 17 is already the output of"
                + " point pump at points.yaml:2",
            "points.yaml:5: error [REG-018] point b: gpio pin 5 is already the input of point a"
                + " at points.yaml:4");
  }

  @Test
  void aPinBothReadAndDriven_isAnError_evenOnOneInoutPoint() {
    List<String> found =
        problems(
            """
            points:
              demand: { type: bool, direction: in, source: { gpio: { pin: 22 } } }
              pump:   { type: bool, direction: out, driver: { gpio: { pin: 22 } } }
              valve:  { type: bool, direction: inout,
                        source: { gpio: { pin: 23 } }, driver: { gpio: { pin: 23 } } }
            """);

    assertThat(found)
        .containsExactly(
            "points.yaml:3: error [REG-019] point pump: gpio pin 22 is both an input and an output"
                + " (output here, input of point demand at points.yaml:2)",
            "points.yaml:5: error [REG-019] point valve: gpio pin 23 is both an input and an"
                + " output (output here, input of point valve at points.yaml:5)");
  }

  @Test
  void pulseMax_onlyOnABoolOutput_longerThanZero_andNeverWithReleaseValueTrue() {
    List<String> found =
        problems(
            """
            points:
              button: { type: bool, direction: in, pulse_max: 5s }
              level:  { type: number, direction: out, pulse_max: 5s }
              horn:   { type: bool, direction: out, pulse_max: 0s }
              strike: { type: bool, direction: out, pulse_max: 5s, release_value: true }
            """);

    assertThat(found)
        .containsExactly(
            "points.yaml:2: error [REG-020] point button: pulse_max belongs on a bool output"
                + " (direction out or inout)",
            "points.yaml:3: error [REG-020] point level: pulse_max belongs on a bool output"
                + " (direction out or inout)",
            "points.yaml:4: error [REG-020] point horn: pulse_max must be longer than zero",
            "points.yaml:5: error [REG-022] point strike: release_value true would hold a point"
                + " with pulse_max energised");
  }

  @Test
  void gpioOnANonBoolPoint_orASourceOnAnOutput_isAnError() {
    List<String> found =
        problems(
            """
            points:
              temp:  { type: number, unit: degC, direction: in, source: { gpio: { pin: 4 } } }
              lamp:  { type: bool, direction: out, source: { gpio: { pin: 12 } } }
            """);

    assertThat(found)
        .containsExactly(
            "points.yaml:2: error [REG-021] point temp: a gpio pin is a bool point, not number",
            "points.yaml:3: error [REG-023] point lamp: an output (direction out) is not read from"
                + " a gpio source; inout is");
  }

  private static List<String> problems(String yaml) {
    Problems problems = new Problems();
    RegistryLoader.load("points.yaml", yaml, problems);
    return problems.sorted().stream().map(Problem::format).toList();
  }
}
