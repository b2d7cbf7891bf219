package io.sentinel.runtime;

import io.sentinel.mqtt.EmbeddedBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What the tests of the packaged application ({@code *IT}) share: a site folder of their own, a
 * Mosquitto of their own when the machine has one (else Moquette in the test JVM; both outlive the
 * gateway's processes, sessions included; {@code -Dsentinel.it.embedded-broker=true} forces
 * Moquette), a recorder and a device on it, {@code target/quarkus-app/quarkus-run.jar} started as a
 * process for the site, and a clean-up that leaves no retained message, persistent session or
 * folder behind.
 */
final class PackagedGateway implements AutoCloseable {
  final String site;
  final Path dir;
  final String mqtt;
  final BrokerClient recorder;
  final BrokerClient device;
  private final EmbeddedBroker embedded;
  private final Process mosquitto;
  private int mosquittoPort;
  private final Instant deadline;
  private final String logPrefix;
  private final List<Process> processes = new ArrayList<>();
  private final List<String> sessions = new ArrayList<>();
  private int runs;

  /**
   * @param prefix the site's name before its random suffix, and the logs' ({@code
   *     target/<prefix>-N.log})
   * @param points the site's {@code points.yaml}
   * @param rules the site's rule files by name
   * @param budget how long the test's waits may take in all
   * @param persistentDevice whether the device keeps a session (QoS 1 publishes survive its
   *     reconnects)
   * @param recorded the topics (below {@code sentinel/<site>/}) the recorder subscribes to
   */
  /**
   * A gateway of a site with three points, {@code PREFIX.load} (a number from 0 to {@code
   * maxLoad}), {@code PREFIX.temp} and {@code PREFIX.valve}, and one rule: the valve is claimed
   * open while the temperature is over 30 (released when it is lost). The device's session is
   * persistent.
   */
  static PackagedGateway valveWhileWarm(
      String prefix, long maxLoad, Duration budget, String... recorded) {
    return new PackagedGateway(
        prefix,
        """
        points:
          %1$s.load: { type: number, unit: W, direction: in, range: [0, %2$d] }
          %1$s.temp: { type: number, unit: degC, direction: in, range: [0, 120] }
          %1$s.valve: { type: bool, direction: out, release_value: false }
        """
            .formatted(prefix, maxLoad),
        Map.of(
            prefix + ".yaml",
            """
            - id: valve-while-warm
              band: automation
              inputs: { temp: %1$s.temp }
              trigger: { on: transition }
              when: temp.value > 30
              claims: [ { point: %1$s.valve, value: true } ]
              on_input_loss: release
              warmup: all_inputs_live
            """
                .formatted(prefix)),
        budget,
        true,
        recorded);
  }

  PackagedGateway(
      String prefix,
      String points,
      Map<String, String> rules,
      Duration budget,
      boolean persistentDevice,
      String... recorded) {
    this.site = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.deadline = Instant.now().plus(budget);
    this.logPrefix = prefix;
    try {
      dir = Files.createTempDirectory("sentinel-" + prefix + "-it");
      Path ruleDir = Files.createDirectories(dir.resolve("site/rules"));
      Files.writeString(dir.resolve("site/points.yaml"), points);
      for (Map.Entry<String, String> r : rules.entrySet()) {
        Files.writeString(ruleDir.resolve(r.getKey()), r.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Optional<Path> mosquittoBinary =
        Boolean.getBoolean("sentinel.it.embedded-broker") ? Optional.empty() : mosquittoOnPath();
    if (mosquittoBinary.isPresent()) {
      embedded = null;
      mosquitto = startMosquitto(mosquittoBinary.get());
      mqtt = "tcp://127.0.0.1:" + mosquittoPort;
    } else {
      embedded = EmbeddedBroker.start("127.0.0.1", 0);
      mosquitto = null;
      mqtt = embedded.url();
    }
    recorder = new BrokerClient(mqtt, "recorder-" + site, false);
    recorder.subscribe(List.of(recorded).stream().map(this::topic).toArray(String[]::new));
    device = new BrokerClient(mqtt, "device-" + site, persistentDevice);
    sessions.add("sentinel-" + site);
    sessions.add("device-" + site);
  }

  /**
   * A Mosquitto of the test's own, configured as docs/runtime.md asks of a gateway's broker: a
   * window of 1,000 unacknowledged messages and a queue of 100,000. The machine's, with Mosquitto's
   * defaults (20 and 1,000), drops what it queues past 1,000 while the gateway's acknowledgements
   * lag, which is the broker losing samples, not the gateway (docs/load.md).
   */
  private Process startMosquitto(Path binary) {
    try {
      try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
        mosquittoPort = s.getLocalPort();
      }
      Path conf =
          Files.writeString(
              dir.resolve("mosquitto.conf"),
              String.join(
                  "\n",
                  "listener " + mosquittoPort + " 127.0.0.1",
                  "allow_anonymous true",
                  "persistence false",
                  "max_inflight_messages 1000",
                  "max_queued_messages 100000",
                  // Started as root, Mosquitto drops to its own user unless told to stay.
                  "user " + System.getProperty("user.name"),
                  ""));
      Process p =
          new ProcessBuilder(binary.toString(), "-c", conf.toString())
              .redirectErrorStream(true)
              .redirectOutput(Path.of("target", logPrefix + "-mosquitto.log").toFile())
              .start();
      Instant until = Instant.now().plusSeconds(10);
      while (!answers(mosquittoPort)) {
        if (!p.isAlive() || Instant.now().isAfter(until)) {
          throw new IllegalStateException(
              "the test's Mosquitto did not start: see target/" + logPrefix + "-mosquitto.log");
        }
        Thread.sleep(50);
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static boolean answers(int port) {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Optional<Path> mosquittoOnPath() {
    for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "mosquitto"))) {
        return Optional.of(Path.of(d, "mosquitto"));
      }
    }
    return Optional.empty();
  }

  boolean embeddedBroker() {
    return embedded != null;
  }

  String topic(String rest) {
    return "sentinel/" + site + "/" + rest;
  }

  Path siteDir() {
    return dir.resolve("site");
  }

  /** A persistent session, besides the gateway's and the device's, that the clean-up ends. */
  void endsSession(String clientId) {
    sessions.add(clientId);
  }

  /**
   * Starts {@code quarkus-run.jar run --site <site>} with {@code -D} options and environment
   * variables of the test's (the broker and site are set here), its output in {@code
   * target/<prefix>-<run>[-<name>].log}.
   */
  Process start(String name, List<String> options, Map<String, String> environment)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(runCommand(options, siteDir()));
    pb.environment().put("SENTINEL_MQTT_URL", mqtt);
    pb.environment().put("SENTINEL_SITE", site);
    pb.environment().putAll(environment);
    pb.redirectErrorStream(true);
    String log = logPrefix + "-" + ++runs + (name.isEmpty() ? "" : "-" + name) + ".log";
    pb.redirectOutput(Path.of("target", log).toFile());
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  /** {@code java OPTIONS -jar target/quarkus-app/quarkus-run.jar run --site SITE}. */
  static List<String> runCommand(List<String> options, Path site) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(options);
    command.addAll(
        List.of(
            "-jar",
            Path.of("target/quarkus-app/quarkus-run.jar").toAbsolutePath().toString(),
            "run",
            "--site",
            site.toString()));
    return command;
  }

  /** The edge JVM's options (src/main/jvm/edge.options) as a java argument, then {@code more}. */
  static List<String> edgeOptions(String... more) {
    List<String> options = new ArrayList<>();
    options.add("@" + Path.of("src/main/jvm/edge.options").toAbsolutePath());
    options.addAll(List.of(more));
    return options;
  }

  /** Waits for {@code condition} until the test's budget is spent. */
  void await(String what, BooleanSupplier condition) {
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError(
            "timed out waiting for " + what + " (see target/" + logPrefix + "-*.log)");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
  }

  Duration left() {
    return Duration.between(Instant.now(), deadline);
  }

  @Override
  public void close() throws Exception {
    try {
      for (Process p : processes) {
        if (p.isAlive()) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      }
      // Every retained topic the gateway wrote (everything but commands and events) cleared.
      for (String t :
          recorder.received().stream()
              .map(BrokerClient.Received::topic)
              .filter(t -> !t.contains("/commands/") && !t.contains("/events/"))
              .distinct()
              .toList()) {
        recorder.publishAsync(t, new byte[0], true).get(2, TimeUnit.SECONDS);
      }
      device.close();
      recorder.close();
      // A clean-session connect with a client id ends that client's persistent session.
      for (String id : sessions) {
        new BrokerClient(mqtt, id, false).close();
      }
    } finally {
      if (embedded != null) {
        embedded.close();
      }
      if (mosquitto != null) {
        mosquitto.destroy();
        mosquitto.waitFor(5, TimeUnit.SECONDS);
      }
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
