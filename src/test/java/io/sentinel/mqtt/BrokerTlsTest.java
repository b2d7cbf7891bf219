package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS and credentials to the site's broker, through the gateway's own connection ({@link
 * MqttConnection}, as {@code sentinel.mqtt.url} and {@code sentinel.mqtt.ca-file} configure it),
 * against a scratch Mosquitto this test starts on a free port with a certificate signed by a CA it
 * generates ({@code openssl}) and a password file ({@code mosquitto_passwd}): the right CA and
 * credentials connect; a wrong CA and a wrong password are refused, each with its cause named.
 */
class BrokerTlsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static Path dir;
  private static int port;
  private static Process mosquitto;

  @BeforeAll
  static void startBroker() throws Exception {
    assumeTrue(
        onPath("mosquitto") && onPath("mosquitto_passwd") && onPath("openssl"),
        "mosquitto, mosquitto_passwd and openssl are needed for a TLS broker");
    dir = Files.createDirectories(Path.of("target/scratch/tls-" + UUID.randomUUID()));
    ca("ca");
    ca("other-ca");
    run(
        "openssl",
        "req",
        "-new",
        "-nodes",
        "-newkey",
        "rsa:2048",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    run(
        "openssl",
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext");
    run("mosquitto_passwd", "-c", "-b", "passwd", "gateway", "s3cret");
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path abs = dir.toAbsolutePath();
    Files.writeString(
        dir.resolve("mosquitto.conf"),
        String.join(
            "\n",
            "listener " + port + " 127.0.0.1",
            "allow_anonymous false",
            "password_file " + abs.resolve("passwd"),
            "cafile " + abs.resolve("ca.pem"),
            "certfile " + abs.resolve("server.pem"),
            "keyfile " + abs.resolve("server.key"),
            "persistence false",
            // Started as root, Mosquitto drops to its own user, who cannot read these files.
            "user " + System.getProperty("user.name"),
            ""));
    mosquitto =
        new ProcessBuilder(which("mosquitto"), "-c", abs.resolve("mosquitto.conf").toString())
            .redirectErrorStream(true)
            .redirectOutput(abs.resolve("mosquitto.log").toFile())
            .start();
    await().atMost(WAIT).until(BrokerTlsTest::listening);
  }

  @AfterAll
  static void stopBroker() throws InterruptedException {
    if (mosquitto != null) {
      mosquitto.destroy();
      mosquitto.waitFor(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void theSitesCaAndCredentials_connect() {
    MqttConnection c = connect("gateway:s3cret", "ca.pem");
    try {
      await().atMost(WAIT).until(c::connected);
    } finally {
      c.stop(Duration.ofSeconds(2));
    }
  }

  @Test
  void aCertificateFromAnotherCa_isRefused_namingTheCa() {
    String why = refusal(connect("gateway:s3cret", "other-ca.pem"));
    assertThat(why)
        .contains("TLS to ssl://127.0.0.1:" + port)
        .contains("not signed by a trusted CA", "sentinel.mqtt.ca-file");
  }

  @Test
  void theJvmsTrustStore_doesNotKnowTheSitesCa() {
    String why = refusal(connect("gateway:s3cret", null));
    assertThat(why).contains("not signed by a trusted CA");
  }

  @Test
  void aWrongPassword_isRefused_namingTheCredentials_notThePassword() {
    String why = refusal(connect("gateway:wrong", "ca.pem"));
    assertThat(why)
        .contains("refused the credentials", "NOT_AUTHORIZED", "user and password")
        .doesNotContain("wrong");
    String anonymous = refusal(connect(null, "ca.pem"));
    assertThat(anonymous).contains("refused the credentials");
  }

  /** Waits for the connection to fail, and gives its reason; it must never connect. */
  private static String refusal(MqttConnection c) {
    try {
      await().atMost(WAIT).until(() -> c.lastFailure().isPresent());
      assertThat(c.connected()).isFalse();
      return c.lastFailure().orElseThrow();
    } finally {
      c.stop(Duration.ofSeconds(2));
    }
  }

  private static MqttConnection connect(String credentials, String caFile) {
    URI url =
        URI.create("ssl://" + (credentials == null ? "" : credentials + "@") + "127.0.0.1:" + port);
    MqttConnection c =
        new MqttConnection(
            new MqttConnection.Settings(
                url,
                "tls-test-" + UUID.randomUUID().toString().substring(0, 8),
                Duration.ofSeconds(30),
                Duration.ofMillis(200),
                Duration.ofSeconds(1),
                100,
                5,
                65_534,
                Optional.ofNullable(caFile).map(dir::resolve),
                Optional.empty()),
            "tls-test/status",
            () -> new byte[0],
            new byte[0],
            List.of("tls-test/#"),
            (topic, payload, delivery, ack) -> ack.run(),
            NoListener.INSTANCE,
            Optional.empty());
    c.start();
    return c;
  }

  private static void ca(String name) throws Exception {
    run(
        "openssl",
        "req",
        "-x509",
        "-new",
        "-nodes",
        "-newkey",
        "rsa:2048",
        "-keyout",
        name + ".key",
        "-out",
        name + ".pem",
        "-days",
        "2",
        "-subj",
        "/CN=sentinel test " + name);
  }

  private static void run(String... command) throws Exception {
    command[0] = which(command[0]);
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("commands.log").toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command)).isZero();
  }

  private static boolean listening() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean onPath(String tool) {
    return !which(tool).equals(tool);
  }

  /** The tool's path on PATH or in /usr/sbin (where Debian puts mosquitto); else its name. */
  private static String which(String tool) {
    for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return Path.of(d, tool).toString();
      }
    }
    return tool;
  }
}
