package io.sentinel.gpio;

import com.pi4j.Pi4J;
import com.pi4j.context.Context;
import com.pi4j.plugin.gpiod.provider.gpio.digital.GpioDDigitalInputProvider;
import com.pi4j.plugin.gpiod.provider.gpio.digital.GpioDDigitalOutputProvider;
import com.pi4j.plugin.mock.provider.gpio.digital.MockDigitalInputProvider;
import com.pi4j.plugin.mock.provider.gpio.digital.MockDigitalOutputProvider;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Which Pi4J provider drives the pins: {@code gpiod} (libgpiod, the kernel's character device on a
 * Raspberry Pi 4 or 5) or {@code mock} (Pi4J's mock pins, on a machine without GPIO). {@code
 * sentinel.gpio.platform}: {@code auto} (the default: gpiod when a {@code /dev/gpiochip*} exists,
 * else mock), {@code gpiod}, {@code mock}, or {@code off} (no GPIO in this process).
 */
public enum GpioPlatform {
  GPIOD,
  MOCK;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The Pi4J context of this platform, its two digital providers added by hand (no ServiceLoader).
   */
  public Context newContext() {
    var builder = Pi4J.newContextBuilder().noAutoDetect();
    return switch (this) {
      case MOCK ->
          builder
              .add(MockDigitalInputProvider.newInstance(), MockDigitalOutputProvider.newInstance())
              .build();
      case GPIOD ->
          builder
              .add(
                  GpioDDigitalInputProvider.newInstance(), GpioDDigitalOutputProvider.newInstance())
              .build();
    };
  }

  /** The choice and why it was made, for the start-up log. */
  public record Choice(GpioPlatform platform, String reason) {}

  /**
   * Reads {@code sentinel.gpio.platform}; empty for {@code off}.
   *
   * @param dev where the gpiochip devices are looked for ({@code /dev})
   * @throws IllegalArgumentException for a value that is none of auto, gpiod, mock, off
   */
  public static Optional<Choice> choose(String setting, Path dev) {
    String s = setting.trim().toLowerCase(Locale.ROOT);
    switch (s) {
      case "off":
        return Optional.empty();
      case "mock":
        return Optional.of(new Choice(MOCK, "sentinel.gpio.platform=mock"));
      case "gpiod":
        return Optional.of(new Choice(GPIOD, "sentinel.gpio.platform=gpiod"));
      case "auto":
        Optional<Path> chip = firstChip(dev);
        return Optional.of(
            chip.map(c -> new Choice(GPIOD, c + " exists"))
                .orElseGet(() -> new Choice(MOCK, "no " + dev.resolve("gpiochip*") + " here")));
      default:
        throw new IllegalArgumentException(
            "SEN-GPIO-008 sentinel.gpio.platform is '"
                + setting
                + "': it is auto, gpiod, mock or off");
    }
  }

  private static Optional<Path> firstChip(Path dev) {
    if (!Files.isDirectory(dev)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> chips = Files.newDirectoryStream(dev, "gpiochip*")) {
      for (Path p : chips) {
        return Optional.of(p);
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
