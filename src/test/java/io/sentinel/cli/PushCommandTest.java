package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.mqtt.EmbeddedBroker;
import io.sentinel.site.Site;
import io.sentinel.site.revision.CanonicalBody;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.site.yaml.Problems;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sentinel push} and {@code sentinel keygen} without a gateway: what is refused before
 * anything is published, the exit code when no status comes, and keys that sign what a gateway
 * verifies. Pushing to a gateway is {@code RulesetPushGatewayTest}.
 */
class PushCommandTest {
  @TempDir Path dir;

  @Test
  void aFileThatIsNotOneMapping_isRefusedBeforePublishing() throws IOException {
    Path file = Files.writeString(dir.resolve("r.yaml"), "- just\n- a list\n");
    CliRunner r =
        CliRunner.run("push", file.toString(), "--broker", "tcp://127.0.0.1:1", "--site", "s");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("is not one YAML or JSON mapping");
  }

  @Test
  void aSignedFile_isNotSignedTwice() throws IOException {
    CliRunner.run("keygen", "ops", "--dir", dir.toString());
    Path file =
        Files.writeString(
            dir.resolve("r.yaml"), "revision: 2\nsite: s\nrules: []\nsignature: AAAA\n");
    CliRunner r =
        CliRunner.run(
            "push",
            file.toString(),
            "--broker",
            "tcp://127.0.0.1:1",
            "--site",
            "s",
            "--key",
            dir.resolve("ops.key").toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.output()).contains("signed already");
  }

  @Test
  void noStatusWithinTheTimeout_exits2_andSaysWhatToCheck() throws IOException {
    Path file = Files.writeString(dir.resolve("r.yaml"), "revision: 2\nsite: s\nrules: []\n");
    String site = "nobody-" + UUID.randomUUID().toString().substring(0, 8);
    CliRunner r =
        CliRunner.run(
            "push",
            file.toString(),
            "--broker",
            "tcp://127.0.0.1:1883",
            "--site",
            site,
            "--timeout",
            "1s");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.output()).containsAnyOf("no status for this document", "127.0.0.1:1883");
  }

  @Test
  void keygen_writesAPairThatSignsWhatItsPrintedEntryVerifies() throws IOException {
    CliRunner r = CliRunner.run("keygen", "safety", "--review", "--dir", dir.toString());
    assertThat(r.exit()).isZero();
    String entry = r.output().substring(r.output().indexOf("keys:"));
    assertThat(entry).contains("review: true");
    Problems problems = new Problems();
    RevisionKeys keys = RevisionKeys.load("keys.yaml", entry, problems);
    assertThat(problems.sorted()).isEmpty();

    String doc = "revision: 2\nsite: s\nrules: []\n";
    String signed =
        RevisionDocument.withSignature(
            doc, RevisionKeys.privateKey(Site.read(dir.resolve("safety.key"))));
    assertThat(signed).startsWith(doc).contains("\nsignature: ");
    String body = RevisionDocument.canonicalBody(signed).orElseThrow();
    String signature = signed.substring(signed.indexOf("signature: ") + 11).strip();
    assertThat(keys.signer(body, signature))
        .hasValueSatisfying(k -> assertThat(k.review()).isTrue());
    assertThat(RevisionKeys.publicKey(Site.read(dir.resolve("safety.pub"))))
        .isEqualTo(keys.keys().get(0).key());
    assertThat(CliRunner.run("keygen", "safety", "--dir", dir.toString()).exit()).isEqualTo(2);
  }

  @Test
  void aJsonDocument_isSignedInsideItsObject() {
    String json = "{\n  \"revision\": 2,\n  \"site\": \"s\",\n  \"rules\": []\n}\n";
    String signed = RevisionDocument.withSignature(json, RevisionKeys.generate().getPrivate());
    assertThat(signed)
        .startsWith("{\n  \"revision\": 2,")
        .endsWith("\"\n}\n")
        .contains(", \"signature\": \"");
    assertThat(RevisionDocument.canonicalBody(signed))
        .isEqualTo(RevisionDocument.canonicalBody(json));
  }

  @Test
  void aConnectionTheBrokerCloses_isOpenedAgain_andThePushWaitsOnForItsStatus() throws Exception {
    String site = "flaky-" + UUID.randomUUID().toString().substring(0, 8);
    String text = "revision: 2\nsite: " + site + "\nrules: []\n";
    Path file = Files.writeString(dir.resolve("r.yaml"), text);
    String hash = CanonicalBody.sha256(RevisionDocument.canonicalBody(text).orElseThrow());
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    java.util.concurrent.atomic.AtomicInteger documents =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicReference<EmbeddedBroker> broker =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.ExecutorService gateway =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    int p = port;
    java.util.function.BiConsumer<String, byte[]>[] seen = new java.util.function.BiConsumer[1];
    seen[0] =
        (topic, payload) -> {
          if (!topic.equals("sentinel/" + site + "/ruleset")) {
            return;
          }
          if (documents.incrementAndGet() == 1) {
            // The first delivery: the broker goes away under the push, and comes back.
            gateway.execute(
                () -> {
                  broker.get().close();
                  broker.set(EmbeddedBroker.start("127.0.0.1", p, seen[0]));
                });
          } else {
            gateway.execute(() -> answer(p, site, hash));
          }
        };
    broker.set(EmbeddedBroker.start("127.0.0.1", port, seen[0]));
    try {
      CliRunner r = push(file, port, site);
      assertThat(r.exit()).as(r.output()).isZero();
      assertThat(r.output()).contains("closed the connection", "publishing again", "active");
      assertThat(documents.get()).isEqualTo(2);
    } finally {
      gateway.shutdownNow();
      broker.get().close();
    }
  }

  @Test
  void aRefusalOfOtherBytesWithTheSameRules_isNotThisPushsAnswer() throws Exception {
    // The gateway, as it answers when the retained copy of an earlier document with these rules
    // (signed, not reviewed) reaches it again just after this push: that refusal first, then this.
    CliRunner r =
        pushAnsweredBy(
            "twins",
            (port, site, hash, document) -> {
              status(port, site, "rejected", hash, CanonicalBody.sha256(new byte[] {1}));
              status(port, site, "active", hash, CanonicalBody.sha256(document));
            },
            () -> {});
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("revision 2 active").doesNotContain("rejected");
  }

  @Test
  void theGatewaysAnswer_isHeard_whileRxJavasSharedThreadsAreBusy() throws Exception {
    // The gateway's own client, in the same process, runs on RxJava's shared threads: a push that
    // needed them too would wait behind it, or see the answer before the broker's acknowledgement
    // of its own publish and drop it (docs/revisions.md, "sentinel push").
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try {
      CliRunner r =
          pushAnsweredBy(
              "busy",
              (port, site, hash, document) ->
                  status(port, site, "rejected", hash, CanonicalBody.sha256(document)),
              () -> occupySharedThreads(release));
      assertThat(r.exit()).as(r.output()).isEqualTo(1);
      assertThat(r.output()).contains("revision 2 rejected");
    } finally {
      release.countDown();
    }
  }

  /** A gateway played by a hook on an embedded broker: what it says of a document pushed. */
  private interface Answer {
    void to(int port, String site, String contentHash, byte[] document);
  }

  private interface Step {
    void run() throws Exception;
  }

  /**
   * Pushes a revision 2 of an empty rule set to an embedded broker whose gateway is {@code answer}.
   */
  private CliRunner pushAnsweredBy(String sitePrefix, Answer answer, Step beforePush)
      throws Exception {
    String site = sitePrefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    String text = "revision: 2\nsite: " + site + "\nrules: []\n";
    Path file = Files.writeString(dir.resolve("r.yaml"), text);
    String hash = CanonicalBody.sha256(RevisionDocument.canonicalBody(text).orElseThrow());
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    java.util.concurrent.ExecutorService gateway =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    int p = port;
    try (EmbeddedBroker broker =
        EmbeddedBroker.start(
            "127.0.0.1",
            port,
            (topic, payload) -> {
              if (topic.equals("sentinel/" + site + "/ruleset")) {
                gateway.execute(() -> answer.to(p, site, hash, payload));
              }
            })) {
      beforePush.run();
      return push(file, port, site);
    } finally {
      gateway.shutdownNow();
    }
  }

  /** Every thread of RxJava's computation pool (workers are handed out round robin) blocked. */
  private static void occupySharedThreads(java.util.concurrent.CountDownLatch release)
      throws InterruptedException {
    int threads = Runtime.getRuntime().availableProcessors();
    java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(threads);
    java.util.Set<Thread> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 4 * threads; i++) {
      io.reactivex.schedulers.Schedulers.computation()
          .createWorker()
          .schedule(
              () -> {
                if (seen.add(Thread.currentThread())) {
                  busy.countDown();
                }
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
    }
    assertThat(busy.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
  }

  private static CliRunner push(Path file, int port, String site) {
    return CliRunner.run(
        "push",
        file.toString(),
        "--broker",
        "tcp://127.0.0.1:" + port,
        "--site",
        site,
        "--timeout",
        "20s");
  }

  /** What a gateway says of a document it activated: its status, matched by content hash. */
  private static void answer(int port, String site, String hash) {
    status(port, site, "active", hash, "");
  }

  private static void status(
      int port, String site, String state, String hash, String documentSha256) {
    var client =
        com.hivemq.client.mqtt.MqttClient.builder()
            .useMqttVersion3()
            .identifier("gateway-" + site)
            .serverHost("127.0.0.1")
            .serverPort(port)
            // Its own threads: the test above keeps RxJava's shared ones busy.
            .executorConfig()
            .applicationScheduler(io.reactivex.schedulers.Schedulers.trampoline())
            .applyExecutorConfig()
            .buildBlocking();
    client.connect();
    client
        .publishWith()
        .topic("sentinel/" + site + "/ruleset/status")
        .payload(
            ("{\"revision\": 2, \"state\": \""
                    + state
                    + "\", \"active_revision\": 2, \"content_hash\": \""
                    + hash
                    + "\", \"document_sha256\": \""
                    + documentSha256
                    + "\", \"problems\": []}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .qos(com.hivemq.client.mqtt.datatypes.MqttQos.AT_LEAST_ONCE)
        .send();
    client.disconnect();
  }
}
