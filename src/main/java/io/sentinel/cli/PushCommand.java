package io.sentinel.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.reactivex.schedulers.Schedulers;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.site.revision.CanonicalBody;
import io.sentinel.site.revision.RevisionDocument;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sentinel push}: signs a revision document if given a key (and a review key), publishes it
 * retained to {@code sentinel/<site>/ruleset} and waits for the gateway's {@code ruleset/status}
 * about this very document (matched by its content hash). Runs without Quarkus, on the HiveMQ
 * client alone.
 */
@Command(
    name = "push",
    description =
        "Publishes a rule-set revision to a gateway and waits for its status: exit 0 when it is"
            + " active, 1 when it is rejected (every problem printed), 2 when no status came.")
public final class PushCommand implements java.util.concurrent.Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Parameters(paramLabel = "FILE", description = "a revision document (YAML or JSON)")
  Path file;

  @Mixin GatewayOptions gateway;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!Files.isRegularFile(file)) {
      err.println("sentinel push: " + file + " is not a file");
      return 2;
    }
    Optional<Duration> wait = gateway.wait("sentinel push", err);
    if (wait.isEmpty()) {
      return 2;
    }
    Optional<String> signed =
        SignCommand.sign(
            Site.read(file), gateway.key, gateway.reviewKey, "sentinel push: " + file, err);
    if (signed.isEmpty()) {
      return 1;
    }
    String text = signed.get();
    Optional<String> body = RevisionDocument.canonicalBody(text);
    if (body.isEmpty()) {
      // The gateway would say so too; a document nobody can read is not worth a retained message.
      err.println(
          "sentinel push: "
              + file
              + " is not one YAML or JSON mapping (check it with sentinel validate)");
      return 1;
    }
    byte[] document = text.getBytes(StandardCharsets.UTF_8);
    if (document.length > RevisionDocument.MAX_BYTES) {
      err.println(
          "sentinel push: "
              + file
              + " has "
              + document.length
              + " bytes; a gateway takes at most "
              + RevisionDocument.MAX_BYTES);
      return 1;
    }
    String hash = CanonicalBody.sha256(body.get());
    return publishAndWait(
        document, hash, System.nanoTime() + wait.get().toNanos(), false, out, err);
  }

  /** Publishes {@code document} retained and waits, until the deadline, for its status. */
  int publishAndWait(
      byte[] document,
      String hash,
      long deadlineNanos,
      boolean lostBefore,
      PrintWriter out,
      PrintWriter err)
      throws InterruptedException {
    Duration wait = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    URI url = gateway.url();
    Topics topics = new Topics(gateway.site);
    CompletableFuture<JsonNode> status = new CompletableFuture<>();
    String documentHash = CanonicalBody.sha256(document);
    // This publish, done once the broker has taken it, so before any answer to it: a refusal seen
    // while it is not done is a retained one, whatever its flag says (Moquette drops it).
    AtomicReference<CompletableFuture<?>> sent = new AtomicReference<>();
    // That "before" holds only if the broker's acknowledgement and the answer are handled in the
    // order they arrived. The client's default hands each to a thread of RxJava's shared pool
    // (round robin), where a busy thread held the acknowledgement back behind the answer and the
    // answer was dropped: one thread of this push's own keeps the wire's order.
    // Never shut down: the client still reports the session's end on it after disconnecting. It
    // keeps no thread once idle for a second.
    ThreadPoolExecutor callbacks =
        new ThreadPoolExecutor(
            0,
            1,
            1,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "sentinel-push");
              t.setDaemon(true);
              return t;
            });
    Mqtt3AsyncClient client =
        MqttConnection.builder(
                url,
                "sentinel-push-" + UUID.randomUUID().toString().substring(0, 8),
                gateway.caFile)
            .executorConfig()
            .applicationScheduler(Schedulers.from(callbacks))
            .applyExecutorConfig()
            // A connection lost while the status is awaited ends the wait: this subscription is
            // gone with it, and the exchange is started again on a new one (below).
            .addDisconnectedListener(ctx -> status.completeExceptionally(ctx.getCause()))
            .buildAsync();
    client.publishes(
        MqttGlobalPublishFilter.ALL,
        p -> {
          try {
            JsonNode s = JSON.readTree(p.getPayloadAsBytes());
            // A retained rejection with this hash is an earlier push's (the same body unsigned,
            // say): only the gateway's answer to this one counts. A retained "active" is the
            // answer, since the gateway says nothing new for a revision already active (or
            // already running in shadow).
            String state = s.path("state").asText();
            CompletableFuture<?> publish = sent.get();
            boolean taken = publish != null && publish.isDone();
            if ((p.isRetain() || !taken) && !"active".equals(state) && !"shadow".equals(state)) {
              return;
            }
            // A refusal is of one document's bytes: the same rules signed differently (the
            // unreviewed push before this reviewed one) are another document, and a refusal of
            // that one said again (its retained copy delivered again) is not this one's answer.
            String refused = s.path("document_sha256").asText("");
            if ("rejected".equals(state) && !refused.isEmpty() && !refused.equals(documentHash)) {
              return;
            }
            if (hash.equals(s.path("content_hash").asText())) {
              status.complete(s);
            }
          } catch (IOException e) {
            // not a status this command understands: keep waiting
          }
        });
    try {
      client.connectWith().cleanSession(true).send().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      client
          .subscribeWith()
          .topicFilter(topics.rulesetStatus())
          .qos(MqttQos.AT_LEAST_ONCE)
          .send()
          .get(wait.toMillis(), TimeUnit.MILLISECONDS);
      // The client's thread waits until this thread holds the publish: an answer handled before
      // then (this thread held up between sending and keeping it) would otherwise be dropped.
      CountDownLatch held = new CountDownLatch(1);
      callbacks.execute(() -> awaitQuietly(held));
      try {
        sent.set(
            client
                .publishWith()
                .topic(topics.ruleset())
                .payload(document)
                .qos(MqttQos.AT_LEAST_ONCE)
                .retain(true)
                .send());
      } finally {
        held.countDown();
      }
      sent.get().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      out.println(
          "published " + file + " to " + topics.ruleset() + " (retained); waiting for its status");
      out.flush();
      long published = System.nanoTime();
      JsonNode s = status.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return report(s, (System.nanoTime() - published) / 1_000_000, out);
    } catch (TimeoutException e) {
      err.println(
          "sentinel push: no status for this document on "
              + topics.rulesetStatus()
              + " within "
              + gateway.timeout
              + " (is the gateway of site "
              + gateway.site
              + " running and connected to "
              + GatewayOptions.where(url)
              + "?)");
      return 2;
    } catch (ExecutionException e) {
      String where = GatewayOptions.where(url);
      if (ConnectionLoss.worthRetrying(e.getCause(), lostBefore, deadlineNanos)) {
        // Publishing the same retained document again is safe: the gateway answers a revision
        // already active with its status, and a document it refused with the same refusal.
        if (!lostBefore) {
          err.println(
              "sentinel push: "
                  + where
                  + " closed the connection ("
                  + e.getCause().getMessage()
                  + "); publishing again");
        }
        return publishAndWait(document, hash, deadlineNanos, true, out, err);
      }
      err.println("sentinel push: " + io.sentinel.mqtt.BrokerTls.describe(e.getCause(), where));
      return 2;
    } finally {
      client.disconnect();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static int report(JsonNode s, long millis, PrintWriter out) {
    String revision = s.path("revision").isNull() ? "?" : s.path("revision").asText();
    for (JsonNode p : s.path("problems")) {
      StringBuilder b = new StringBuilder(p.path("file").asText());
      if (p.path("line").asInt() > 0) {
        b.append(':').append(p.path("line").asInt());
      }
      b.append(": ").append(p.path("severity").asText());
      if (!p.path("code").asText().isEmpty()) {
        b.append(" [").append(p.path("code").asText()).append(']');
      }
      if (!p.path("rule").asText().isEmpty()) {
        b.append(" rule ").append(p.path("rule").asText()).append(':');
      }
      out.println(b.append(' ').append(p.path("message").asText()));
    }
    if ("active".equals(s.path("state").asText())) {
      out.println(
          "revision "
              + revision
              + " active"
              + (s.hasNonNull("signer") ? " (signed by " + s.path("signer").asText() : " (unsigned")
              + (s.hasNonNull("reviewer") ? ", reviewed by " + s.path("reviewer").asText() : "")
              + ")"
              + ", status after "
              + millis
              + " ms");
      return 0;
    }
    if ("shadow".equals(s.path("state").asText())) {
      out.println(
          "revision "
              + revision
              + " runs in shadow beside revision "
              + s.path("active_revision").asText()
              + (s.hasNonNull("signer") ? " (signed by " + s.path("signer").asText() : " (unsigned")
              + (s.hasNonNull("reviewer") ? ", reviewed by " + s.path("reviewer").asText() : "")
              + "): its commands are recorded, none sent; sentinel promote "
              + revision
              + " activates it, status after "
              + millis
              + " ms");
      return 0;
    }
    out.println(
        "revision "
            + revision
            + " rejected; revision "
            + s.path("active_revision").asText()
            + " stays active (status after "
            + millis
            + " ms)");
    return 1;
  }
}
