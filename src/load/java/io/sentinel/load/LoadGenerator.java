package io.sentinel.load;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * Drives a gateway (a separate process: {@code java -jar target/quarkus-app/quarkus-run.jar run})
 * through the broker with the issue's workload and reports, per rate, the latency from a sample
 * published to its command received (HdrHistogram p50/p99/p99.9), whether every command was right
 * and present, the sustained throughput and the gateway's CPU and RSS; and, as the ceiling, the
 * same broker's raw publish-to-subscribe latency at the same rates. Loopback only, bounded in count
 * and time. How to run it and the figures: docs/load.md.
 */
public final class LoadGenerator {
  private LoadGenerator() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    String run = UUID.randomUUID().toString().substring(0, 8);
    String site = "load-" + run;
    Workload workload = new Workload(o.zones);
    Path siteDir = Path.of("target/load-site");
    workload.writeSite(siteDir);
    List<String> rows = new ArrayList<>();

    Process gateway = startGateway(o, site, siteDir);
    try {
      Mqtt3AsyncClient publisher = connect(o.broker, "load-pub-" + run);
      Mqtt3AsyncClient subscriber = connect(o.broker, "load-sub-" + run);
      Phase[] current = {new Phase()};
      String commands = "sentinel/" + site + "/commands/";
      subscriber.publishes(
          MqttGlobalPublishFilter.ALL,
          p -> current[0].command(p.getTopic().toString().substring(commands.length()), p));
      subscriber
          .subscribeWith()
          .topicFilter(commands + "#")
          .qos(MqttQos.AT_LEAST_ONCE)
          .send()
          .join();
      awaitOnline(o, site, gateway);

      // Every zone reports once (all rules leave warmup), then a warm-up at the lowest rate.
      Phase start = current[0];
      for (int z = 0; z < o.zones; z++) {
        Workload.Sample s = workload.initial(z);
        if (s.hot()) {
          start.expect(s.zone(), true, System.nanoTime());
        }
        publish(publisher, site, s);
      }
      start.drain(Duration.ofSeconds(30));
      current[0] = new Phase();
      drive(o, publisher, site, workload, current[0], o.rates[0], o.warmupSeconds);
      current[0].drain(Duration.ofSeconds(10));

      // Raw broker and gateway alternate per rate, so both rows of a rate see the same machine.
      raw(o, run + "-warm", o.rates[0], o.warmupSeconds, gateway.pid());
      for (int rate : o.rates) {
        rows.add(raw(o, run, rate, o.seconds, gateway.pid()).row("raw broker", rate));
        Phase phase = new Phase();
        current[0] = phase;
        double acceptedBefore = accepted(o);
        long cpuBefore = cpuTicks(gateway.pid());
        Machine before = Machine.now();
        long t0 = System.nanoTime();
        drive(o, publisher, site, workload, phase, rate, o.seconds);
        phase.drain(Duration.ofSeconds(10));
        long elapsed = System.nanoTime() - t0;
        phase.gatewayCpu =
            (cpuTicks(gateway.pid()) - cpuBefore) / 100.0 / (elapsed / 1e9) * 100;
        phase.machine = before.until(Machine.now(), elapsed);
        phase.gatewayThroughput = (accepted(o) - acceptedBefore) / (elapsed / 1e9);
        phase.rss = status(gateway.pid(), "VmRSS");
        phase.hwm = status(gateway.pid(), "VmHWM");
        rows.add(phase.row("gateway", rate));
      }
      publisher.disconnect().join();
      subscriber.disconnect().join();
    } finally {
      gateway.destroy();
      gateway.waitFor(10, TimeUnit.SECONDS);
      cleanUp(o, site);
    }
    String report = Phase.HEADER + String.join("\n", rows) + "\n";
    Files.writeString(Path.of("target/load-report.md"), report);
    System.out.println(report);
  }

  /** The broker alone: publisher to subscriber through the same broker, same rate, QoS 1. */
  private static Phase raw(Options o, String run, int rate, int seconds, long idleGateway)
      throws Exception {
    Mqtt3AsyncClient publisher = connect(o.broker, "raw-pub-" + run);
    Mqtt3AsyncClient subscriber = connect(o.broker, "raw-sub-" + run);
    String prefix = "sentinel-load/" + run + "/raw/";
    Phase phase = new Phase();
    Machine before = Machine.now();
    long gatewayBefore = cpuTicks(idleGateway);
    Map<Long, Long> sentAt = new ConcurrentHashMap<>();
    subscriber.publishes(
        MqttGlobalPublishFilter.ALL,
        p -> {
          long now = System.nanoTime();
          Long at = sentAt.remove(Long.parseLong(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)));
          if (at != null) {
            phase.received(now - at);
          }
        });
    subscriber.subscribeWith().topicFilter(prefix + "#").qos(MqttQos.AT_LEAST_ONCE).send().join();
    AtomicLong seq = new AtomicLong();
    long t0 = System.nanoTime();
    pace(
        rate,
        seconds,
        () -> {
          long n = seq.getAndIncrement();
          sentAt.put(n, System.nanoTime());
          phase.expected.incrementAndGet();
          publisher
              .publishWith()
              .topic(prefix + "zone." + (n % o.zones))
              .payload(Long.toString(n).getBytes(StandardCharsets.UTF_8))
              .qos(MqttQos.AT_LEAST_ONCE)
              .send();
          return true;
        });
    phase.sent = seq.get();
    await(() -> sentAt.isEmpty(), Duration.ofSeconds(10));
    phase.missing = sentAt.size();
    long elapsed = System.nanoTime() - t0;
    phase.brokerThroughput = phase.received.get() / (elapsed / 1e9);
    phase.machine = before.until(Machine.now(), elapsed);
    phase.gatewayCpu = (cpuTicks(idleGateway) - gatewayBefore) / 100.0 / (elapsed / 1e9) * 100;
    publisher.disconnect().join();
    subscriber.disconnect().join();
    return phase;
  }

  private static void drive(
      Options o,
      Mqtt3AsyncClient publisher,
      String site,
      Workload workload,
      Phase phase,
      int rate,
      int seconds) {
    AtomicLong sent = new AtomicLong();
    pace(
        rate,
        seconds,
        () -> {
          Workload.Sample s = workload.next();
          if (s.flipped()) {
            phase.expect(s.zone(), s.hot(), System.nanoTime());
          }
          publish(publisher, site, s);
          sent.incrementAndGet();
          return true;
        });
    phase.sent = sent.get();
  }

  private static void publish(Mqtt3AsyncClient publisher, String site, Workload.Sample s) {
    publisher
        .publishWith()
        .topic("sentinel/" + site + "/points/" + Workload.point(s.zone(), "temp"))
        .payload(String.format(Locale.ROOT, "%.2f", s.celsius()).getBytes(StandardCharsets.UTF_8))
        .qos(MqttQos.AT_LEAST_ONCE)
        .send();
  }

  /**
   * Calls {@code send} {@code rate} times a second for {@code seconds}: every millisecond it sends
   * what has fallen due, so the generator does not spin on a core the gateway needs.
   */
  private static void pace(int rate, int seconds, BooleanSupplier send) {
    long total = (long) rate * seconds;
    long start = System.nanoTime();
    long done = 0;
    while (done < total) {
      long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L + 1);
      while (done < due) {
        send.getAsBoolean();
        done++;
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  private static Process startGateway(Options o, String site, Path siteDir) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // The gateway's one definition of its JVM options (docs/deployment.md, "The edge JVM").
    command.add("@" + Path.of("src/main/jvm/edge.options").toAbsolutePath());
    if (!o.gatewayJavaOpts.isBlank()) {
      command.addAll(Arrays.asList(o.gatewayJavaOpts.trim().split("\\s+")));
    }
    command.addAll(List.of("-jar", o.jar, "run", "--site", siteDir.toString()));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("SENTINEL_MQTT_URL", o.broker);
    pb.environment().put("SENTINEL_SITE", site);
    pb.environment().put("QUARKUS_HTTP_PORT", Integer.toString(o.httpPort));
    pb.redirectErrorStream(true).redirectOutput(Path.of("target/load-gateway.log").toFile());
    System.out.println("gateway: " + String.join(" ", command));
    return pb.start();
  }

  private static void awaitOnline(Options o, String site, Process gateway) throws Exception {
    Mqtt3AsyncClient probe = connect(o.broker, "load-probe-" + site);
    boolean[] online = {false};
    probe.publishes(
        MqttGlobalPublishFilter.ALL,
        p -> online[0] |= new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8).contains("online"));
    probe.subscribeWith().topicFilter("sentinel/" + site + "/status").send().join();
    // A first run without SENTINEL_DB_URL unpacks and initialises the embedded PostgreSQL before
    // the gateway comes online: over a minute on a busy 2-core machine.
    await(() -> online[0] || !gateway.isAlive(), Duration.ofSeconds(180));
    if (!gateway.isAlive() || !online[0]) {
      throw new IllegalStateException("the gateway did not come online: target/load-gateway.log");
    }
    probe.disconnect().join();
  }

  /**
   * Leaves the broker as it was: the run's retained claims and status cleared, the gateway's
   * persistent session ended (a clean-session connect with its client id).
   */
  private static void cleanUp(Options o, String site) {
    Mqtt3AsyncClient c = connect(o.broker, "load-clean-" + site);
    java.util.Set<String> retained = ConcurrentHashMap.newKeySet();
    c.publishes(MqttGlobalPublishFilter.ALL, p -> retained.add(p.getTopic().toString()));
    c.subscribeWith().topicFilter("sentinel/" + site + "/#").send().join();
    long seen = -1;
    while (seen != retained.size()) {
      seen = retained.size();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
    }
    c.unsubscribeWith().topicFilter("sentinel/" + site + "/#").send().join();
    for (String topic : retained) {
      c.publishWith().topic(topic).retain(true).qos(MqttQos.AT_LEAST_ONCE).send().join();
    }
    c.disconnect().join();
    connect(o.broker, "sentinel-" + site).disconnect().join();
  }

  private static Mqtt3AsyncClient connect(String url, String id) {
    URI u = URI.create(url);
    Mqtt3AsyncClient c =
        MqttClient.builder()
            .useMqttVersion3()
            .identifier(id)
            .serverHost(u.getHost())
            .serverPort(u.getPort())
            .buildAsync();
    c.connectWith().cleanSession(true).send().join();
    return c;
  }

  /** The gateway's count of samples taken, from its Prometheus endpoint. */
  private static double accepted(Options o) {
    try {
      String body =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + o.httpPort + "/q/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      return body.lines()
          .filter(l -> l.startsWith("sentinel_ingest_accepted_total"))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .findFirst()
          .orElse(Double.NaN);
    } catch (IOException e) {
      return Double.NaN;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Double.NaN;
    }
  }

  /** User plus system time of a process, in clock ticks (1/100 s on Linux). */
  private static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /** A {@code /proc/<pid>/status} memory line, in MB. */
  private static double status(long pid, String key) throws IOException {
    return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
        .filter(l -> l.startsWith(key + ":"))
        .mapToDouble(l -> Long.parseLong(l.replaceAll("\\D", "")) / 1024.0)
        .findFirst()
        .orElse(Double.NaN);
  }

  static void await(BooleanSupplier condition, Duration limit) {
    long end = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < end) {
      LockSupport.parkNanos(10_000_000);
    }
  }

  /** One measured stretch: what was expected, what came, how late. */
  static final class Phase {
    static final String HEADER =
        "| path | rate /s | samples sent | commands expected | received | wrong | missing | extra"
            + " | p50 ms | p99 ms | p99.9 ms | max ms | sustained /s | gateway CPU % of a core"
            + " | CPU % per 1k/s | RSS MB | peak RSS MB | broker CPU % | machine busy % of 2 cores"
            + " |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";

    private final Histogram latencyMicros = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    private final Map<Integer, ConcurrentLinkedQueue<long[]>> expect = new ConcurrentHashMap<>();
    final AtomicLong expected = new AtomicLong();
    final AtomicLong received = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    final AtomicLong extra = new AtomicLong();
    long sent;
    long missing;
    double gatewayCpu = Double.NaN;
    double gatewayThroughput = Double.NaN;
    double brokerThroughput = Double.NaN;
    double rss = Double.NaN;
    double hwm = Double.NaN;
    String machine = "- | -";

    void expect(int zone, boolean value, long sentNanos) {
      expected.incrementAndGet();
      expect
          .computeIfAbsent(zone, z -> new ConcurrentLinkedQueue<>())
          .add(new long[] {value ? 1 : 0, sentNanos});
    }

    /** A command for {@code point} ({@code zone.<n>.vent}) arrived. */
    void command(String point, com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish p) {
      long now = System.nanoTime();
      int zone = Integer.parseInt(point.substring(5, point.indexOf('.', 5)));
      long[] want = expect.getOrDefault(zone, new ConcurrentLinkedQueue<>()).poll();
      if (want == null) {
        extra.incrementAndGet();
        return;
      }
      Object value = new JsonObject(new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)).getValue("value");
      if (!Boolean.valueOf(want[0] == 1).equals(value)) {
        wrong.incrementAndGet();
      }
      received(now - want[1]);
    }

    synchronized void received(long nanos) {
      received.incrementAndGet();
      latencyMicros.recordValue(Math.max(1, nanos / 1_000));
    }

    void drain(Duration limit) {
      await(() -> received.get() >= expected.get(), limit);
      missing = expected.get() - received.get();
    }

    synchronized String row(String path, int rate) {
      boolean raw = path.startsWith("raw");
      return String.format(
          Locale.ROOT,
          "| %s | %,d | %,d | %s | %,d | %s | %,d | %s | %.2f | %.2f | %.2f | %.2f | %,.0f | %s | %s |"
              + " %s | %s | %s |",
          path,
          rate,
          sent,
          raw ? "-" : String.format(Locale.ROOT, "%,d", expected.get()),
          received.get(),
          raw ? "-" : Long.toString(wrong.get()),
          missing,
          raw ? "-" : Long.toString(extra.get()),
          latencyMicros.getValueAtPercentile(50) / 1000.0,
          latencyMicros.getValueAtPercentile(99) / 1000.0,
          latencyMicros.getValueAtPercentile(99.9) / 1000.0,
          latencyMicros.getMaxValue() / 1000.0,
          raw ? brokerThroughput : gatewayThroughput,
          String.format(Locale.ROOT, raw ? "(idle) %.1f" : "%.1f", gatewayCpu),
          raw ? "-" : String.format(Locale.ROOT, "%.2f", gatewayCpu / (rate / 1000.0)),
          raw ? "-" : String.format(Locale.ROOT, "%.0f", rss),
          raw ? "-" : String.format(Locale.ROOT, "%.0f", hwm),
          machine);
    }
  }

  /**
   * CPU use of the broker (Mosquitto, found by name) and of the whole machine, so a table run on a
   * busy shared machine says so.
   */
  record Machine(long brokerTicks, long busyTicks, long totalTicks) {
    static Machine now() {
      try {
        long broker = 0;
        for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
          if (p.info().command().orElse("").endsWith("mosquitto")) {
            broker += cpuTicks(p.pid());
          }
        }
        String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long busy = 0;
        long total = 0;
        for (int i = 1; i < cpu.length && i <= 8; i++) {
          long v = Long.parseLong(cpu[i]);
          total += v;
          busy += i == 4 || i == 5 ? 0 : v; // idle and iowait are not busy
        }
        return new Machine(broker, busy, total);
      } catch (IOException e) {
        return new Machine(0, 0, 1);
      }
    }

    String until(Machine later, long elapsedNanos) {
      double brokerCpu = (later.brokerTicks - brokerTicks) / 100.0 / (elapsedNanos / 1e9) * 100;
      double busy = 100.0 * (later.busyTicks - busyTicks) / Math.max(1, later.totalTicks - totalTicks);
      return String.format(Locale.ROOT, "%.1f | %.0f", brokerCpu, busy);
    }
  }

  /** Command-line options, each with its default. */
  static final class Options {
    String broker = "tcp://127.0.0.1:1883";
    String jar = "target/quarkus-app/quarkus-run.jar";
    /** Added after the edge JVM's options (src/main/jvm/edge.options), which they override. */
    String gatewayJavaOpts = "";
    int[] rates = {2_000, 5_000, 10_000};
    int seconds = 20;
    int warmupSeconds = 10;
    int zones = 1_000;
    int httpPort = 18_089;

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i + 1 < args.length; i += 2) {
        String v = args[i + 1];
        switch (args[i]) {
          case "--broker" -> o.broker = v;
          case "--jar" -> o.jar = v;
          case "--gateway-java-opts" -> o.gatewayJavaOpts = v;
          case "--rates" -> o.rates = Arrays.stream(v.split(",")).mapToInt(Integer::parseInt).toArray();
          case "--seconds" -> o.seconds = Integer.parseInt(v);
          case "--warmup-seconds" -> o.warmupSeconds = Integer.parseInt(v);
          case "--zones" -> o.zones = Integer.parseInt(v);
          case "--http-port" -> o.httpPort = Integer.parseInt(v);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (!o.broker.contains("127.0.0.1") && !o.broker.contains("localhost")) {
        throw new IllegalArgumentException("the load generator drives loopback brokers only");
      }
      return o;
    }
  }
}
