package io.sentinel.runtime;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.sentinel.mqtt.EmbeddedBroker;
import io.sentinel.store.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The broker of a gateway test: the machine's Mosquitto at 127.0.0.1:1883 when it answers, an
 * embedded Moquette on a free port when it does not (or when the test asks for one it can stop:
 * init arg {@code embedded=always}). Every test class gets its own site name with a random suffix,
 * so retained messages on a shared broker never leak between runs, and a recorder subscribed to the
 * site's topics before the gateway starts (a test sees the commands of the first pass). Every test
 * class also gets a database of its own ({@link TestDatabase}: the machine's PostgreSQL, else an
 * embedded one), which the gateway logs to and restores from, dropped when the class is done.
 *
 * <p>Init args: {@code site-dir}, {@code site-prefix}, {@code embedded}, {@code
 * allow-unsigned-revisions} (true: the example site, copied with {@code allow_unsigned_revisions:
 * true} in its site.yaml), {@code substitute-site} (true: the site-dir copied with {@code @SITE@}
 * replaced by the site's name), {@code db-link} (true: the gateway reaches its database through a
 * {@link SlowLink} the test can stall, {@link Broker#databaseLink}); any other arg is passed
 * through as configuration. GPIO is off unless a test sets {@code sentinel.gpio.platform}.
 */
public final class BrokerResource implements QuarkusTestResourceLifecycleManager {
  /** Marks the test's field that receives the {@link Broker}. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.FIELD)
  public @interface InjectBroker {}

  /**
   * What a test gets: the broker's URL, the site, the recorder, and the embedded broker's switch.
   */
  public static final class Broker {
    private final String url;
    private final String site;
    private final BrokerClient recorder;
    private final int embeddedPort;
    private TestDatabase database;
    private SlowLink databaseLink;
    private final List<BrokerClient.Received> seenByBroker = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger clients =
        new java.util.concurrent.atomic.AtomicInteger();
    private EmbeddedBroker embedded;

    Broker(String url, String site, BrokerClient recorder, EmbeddedBroker embedded, int port) {
      this.url = url;
      this.site = site;
      this.recorder = recorder;
      this.embedded = embedded;
      this.embeddedPort = port;
    }

    public String url() {
      return url;
    }

    public String site() {
      return site;
    }

    /** The gateway's database (sentinel.db.url), to look at what it logged. */
    public TestDatabase database() {
      return database;
    }

    /** The link between the gateway and its database, with init arg {@code db-link=true}. */
    public SlowLink databaseLink() {
      return java.util.Objects.requireNonNull(databaseLink, "no db-link=true for this test");
    }

    public String topic(String rest) {
      return "sentinel/" + site + "/" + rest;
    }

    public BrokerClient recorder() {
      return recorder;
    }

    public boolean isEmbedded() {
      return embeddedPort > 0;
    }

    /** Stops the embedded broker (it loses every session and message). */
    public void stopEmbedded() {
      embedded.close();
      embedded = null;
    }

    /** Starts the embedded broker again on the same port. */
    public void startEmbedded() {
      embedded = EmbeddedBroker.start("127.0.0.1", embeddedPort, this::seen);
    }

    /**
     * Every message the embedded broker received, re-sends included, across its restarts: what a
     * device subscribed to it would have been offered.
     */
    public List<BrokerClient.Received> seenByBroker(String topic) {
      return seenByBroker.stream().filter(r -> r.topic().equals(topic)).toList();
    }

    void seen(String topic, byte[] payload) {
      seenByBroker.add(new BrokerClient.Received(topic, payload, Instant.now()));
    }

    /**
     * A new client of this broker, for a test's device. Each gets a client id of its own: two
     * clients under one id take the session from each other, reconnecting in turn, and a publish
     * lands on whichever is away at that moment.
     */
    public BrokerClient client(String name) {
      awaitGatewayOnline();
      return new BrokerClient(url, name + "-" + site + "-" + clients.incrementAndGet(), false);
    }

    /**
     * The gateway says online once it is subscribed (MqttConnection): a device made before that
     * could publish into a new session that does not hear it yet. Bounded: a test whose gateway
     * never reaches the broker goes on as before.
     */
    private void awaitGatewayOnline() {
      String status = "sentinel/" + site + "/status";
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while (recorder.on(status).stream().noneMatch(r -> r.text().contains("\"online\""))
          && System.nanoTime() < deadline) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private volatile Broker broker;
  private Map<String, String> args = Map.of();

  @Override
  public void init(Map<String, String> initArgs) {
    this.args = initArgs;
  }

  @Override
  public Map<String, String> start() {
    String site =
        args.getOrDefault("site-prefix", "it") + "-" + UUID.randomUUID().toString().substring(0, 8);
    List<BrokerClient.Received> early = new CopyOnWriteArrayList<>();
    EmbeddedBroker embedded = null;
    String url;
    if ("always".equals(args.get("embedded")) || !mosquittoAnswers()) {
      // Until the Broker exists, what the broker sees is kept aside (nothing is published yet).
      embedded =
          EmbeddedBroker.start(
              "127.0.0.1",
              0,
              (topic, payload) ->
                  (broker == null ? early : broker.seenByBroker)
                      .add(new BrokerClient.Received(topic, payload, Instant.now())));
      url = embedded.url();
    } else {
      url = "tcp://127.0.0.1:1883";
    }
    BrokerClient recorder = new BrokerClient(url, "recorder-" + site, true);
    // What the gateway publishes; not points/, where the test's devices publish.
    String root = "sentinel/" + site + "/";
    recorder.subscribe(
        root + "status",
        root + "commands/#",
        root + "claims/#",
        root + "events/#",
        root + "self/#",
        root + "state/#");
    broker = new Broker(url, site, recorder, embedded, embedded == null ? -1 : embedded.port());
    broker.seenByBroker.addAll(early);
    broker.database = TestDatabase.create();
    Path spool;
    try {
      spool = Files.createTempDirectory("sentinel-test-spool");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> config = new HashMap<>();
    config.put("sentinel.mqtt.url", url);
    // Moquette speaks MQTT 3.1.1 only; Mosquitto takes the gateway's default, MQTT 5.
    config.put("sentinel.mqtt.version", embedded != null ? "3" : "5");
    config.put("sentinel.site", site);
    config.put(
        "sentinel.site-dir",
        "true".equals(args.get("allow-unsigned-revisions"))
            ? allowingUnsigned(site).toString()
            : "true".equals(args.get("substitute-site"))
                ? substituted(Path.of(args.get("site-dir")), site).toString()
                : args.getOrDefault("site-dir", "."));
    config.put("sentinel.mqtt.reconnect-initial", "100ms");
    config.put("sentinel.mqtt.reconnect-max", "1s");
    String dbUrl = broker.database.configUrl();
    if ("true".equals(args.get("db-link"))) {
      io.sentinel.store.DbUrl direct = broker.database.url();
      try {
        broker.databaseLink = SlowLink.raw(direct.host(), direct.port());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      dbUrl =
          dbUrl.replace(
              "@" + direct.host() + ":" + direct.port() + "/",
              "@127.0.0.1:" + broker.databaseLink.port() + "/");
    }
    config.put("sentinel.db.url", dbUrl);
    config.put("sentinel.journal.dir", spool.toString());
    // Commands over MQTT, where the test's recorder sees them: a test that wants the (mock) pins
    // says sentinel.gpio.platform=mock.
    config.put("sentinel.gpio.platform", "off");
    args.forEach(
        (k, v) -> {
          if (!Set.of(
                  "site-dir",
                  "site-prefix",
                  "embedded",
                  "allow-unsigned-revisions",
                  "substitute-site",
                  "db-link")
              .contains(k)) {
            config.put(k, v);
          }
        });
    return config;
  }

  /** A copy of the example site whose site.yaml allows unsigned revisions. */
  private static Path allowingUnsigned(String site) {
    try {
      Path dir =
          io.sentinel.testing.SiteCopy.of(
              Files.createDirectories(Path.of("target/scratch/unsigned-" + site)));
      Files.writeString(
          dir.resolve("site.yaml"),
          Files.readString(Path.of("seeds/site.yaml")) + "allow_unsigned_revisions: true\n");
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A copy of a site folder with {@code @SITE@} replaced by the site's name in every file: device
   * topics of its own (zigbee2mqtt/@SITE@-relay), so runs on a shared broker never meet.
   */
  private static Path substituted(Path from, String site) {
    Path to = Path.of("target/scratch/site-" + site);
    try (var files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.writeString(target, Files.readString(p).replace("@SITE@", site));
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void inject(TestInjector injector) {
    injector.injectIntoFields(
        broker, new TestInjector.AnnotatedAndMatchesType(InjectBroker.class, Broker.class));
  }

  /** Leaves a shared broker as it was: no retained message and no session of this site. */
  @Override
  public void stop() {
    if (broker == null) {
      return;
    }
    try {
      stopBroker();
    } finally {
      if (broker.databaseLink != null) {
        try {
          broker.databaseLink.close();
        } catch (IOException e) {
          // closed: nothing passes any more either way
        }
      }
      broker.database.close();
    }
  }

  private void stopBroker() {
    if (broker.isEmbedded()) {
      broker.recorder().close();
      if (broker.embedded != null) {
        broker.embedded.close();
      }
      return;
    }
    try {
      Set<String> retainedTopics = new HashSet<>();
      String root = "sentinel/" + broker.site() + "/";
      for (BrokerClient.Received r : broker.recorder().received()) {
        String rest = r.topic().substring(root.length());
        if (rest.equals("status")
            || rest.startsWith("claims/")
            || rest.startsWith("self/")
            || rest.startsWith("state/")) {
          retainedTopics.add(r.topic());
        }
      }
      retainedTopics.add(root + "ruleset");
      retainedTopics.add(root + "ruleset/status");
      for (String topic : retainedTopics) {
        broker.recorder().publishAsync(topic, new byte[0], true).join();
      }
      // A clean-session connect with the gateway's client id ends its persistent session.
      new BrokerClient(broker.url(), "sentinel-" + broker.site(), false).close();
    } finally {
      broker.recorder().close();
      new BrokerClient(broker.url(), "recorder-" + broker.site(), false).close();
    }
  }

  static boolean mosquittoAnswers() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 1883), 300);
      // CONNECT (MQTT 3.1.1, clean session, keep-alive 5 s, client id "probe"): a broker answers
      // with CONNACK 0x20; something else on the port does not.
      byte[] id = "sentinel-probe".getBytes(StandardCharsets.UTF_8);
      byte[] header = {0x00, 0x04, 'M', 'Q', 'T', 'T', 0x04, 0x02, 0x00, 0x05};
      s.getOutputStream().write(new byte[] {0x10, (byte) (header.length + 2 + id.length)});
      s.getOutputStream().write(header);
      s.getOutputStream().write(new byte[] {0x00, (byte) id.length});
      s.getOutputStream().write(id);
      s.getOutputStream().write(new byte[] {(byte) 0xE0, 0x00});
      s.setSoTimeout(1000);
      return s.getInputStream().read() == 0x20;
    } catch (IOException e) {
      return false;
    }
  }
}
