package io.sentinel.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import io.sentinel.mqtt.MqttConnection;
import io.sentinel.mqtt.Topics;
import io.sentinel.site.Site;
import io.sentinel.site.revision.CanonicalBody;
import io.sentinel.site.revision.ShadowGate;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sentinel promote N} (docs/shadow.md): the shadow revision N that runs on the gateway
 * becomes the active revision N. It takes the document the gateway runs in shadow (the retained
 * {@code ruleset} topic, or {@code --from FILE}), checks that it is the very one the retained
 * {@code ruleset/shadow} summary names (its body without {@code mode} hashes to the summary's
 * {@code promoted_hash}), drops {@code mode: shadow}, signs it afresh with the operator's keys and
 * publishes it like {@code sentinel push}. The gateway checks it like any revision: a signature
 * over a shadow revision never activates it; promoting is signing the same body again, as active.
 */
@Command(
    name = "promote",
    description =
        "Activates the shadow revision N running on a gateway: signs its body again as an active"
            + " revision and pushes it; exit 0 when active, 1 when refused or rejected, 2 when the"
            + " gateway did not answer.")
public final class PromoteCommand implements java.util.concurrent.Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Parameters(paramLabel = "N", description = "the shadow revision's number")
  long revision;

  @Mixin GatewayOptions gateway;

  @Option(
      names = "--from",
      description =
          "the shadow revision's document as pushed (default: the retained ruleset topic's)")
  Optional<Path> from;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException, InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Optional<Duration> wait = gateway.wait("sentinel promote", err);
    if (wait.isEmpty()) {
      return 2;
    }
    if (from.isPresent() && !Files.isRegularFile(from.get())) {
      err.println("sentinel promote: " + from.get() + " is not a file");
      return 2;
    }
    Topics topics = new Topics(gateway.site);
    Map<String, byte[]> retained = retained(topics, wait.get(), err);
    if (retained == null) {
      return 2;
    }
    byte[] summaryBytes = retained.get(topics.rulesetShadow());
    JsonNode summary = summaryBytes == null ? null : JSON.readTree(summaryBytes);
    if (summary == null
        || !"running".equals(summary.path("state").asText())
        || summary.path("revision").asLong() != revision) {
      err.println(
          "sentinel promote: no shadow revision "
              + revision
              + " runs on site "
              + gateway.site
              + (summary == null
                  ? " (nothing retained on " + topics.rulesetShadow() + ")"
                  : " ("
                      + topics.rulesetShadow()
                      + " says revision "
                      + summary.path("revision").asText()
                      + " "
                      + summary.path("state").asText()
                      + ")"));
      return 1;
    }
    String document;
    if (from.isPresent()) {
      document = Site.read(from.get());
    } else if (retained.containsKey(topics.ruleset())) {
      document = new String(retained.get(topics.ruleset()), StandardCharsets.UTF_8);
    } else {
      err.println(
          "sentinel promote: nothing retained on "
              + topics.ruleset()
              + ": give the shadow revision's document with --from FILE");
      return 1;
    }
    Optional<String> body = ShadowGate.promotedBody(document);
    String expected = summary.path("promoted_hash").asText();
    if (body.isEmpty() || !CanonicalBody.sha256(body.get()).equals(expected)) {
      err.println(
          "sentinel promote: "
              + from.map(Path::toString).orElse("the document retained on " + topics.ruleset())
              + " is not the shadow revision "
              + revision
              + " the gateway runs (its body does not hash to "
              + expected
              + "): give that one with --from FILE");
      return 1;
    }
    Optional<String> signed =
        SignCommand.sign(
            body.get(), gateway.key, gateway.reviewKey, "sentinel promote " + revision, err);
    if (signed.isEmpty()) {
      return 1;
    }
    out.println(
        "promoting shadow revision "
            + revision
            + " ("
            + summary.path("differences").asLong()
            + " difference(s) reported over "
            + summary.path("passes").asLong()
            + " passes since "
            + summary.path("since").asText()
            + ")");
    PushCommand push = new PushCommand();
    push.file = Path.of("shadow revision " + revision);
    push.gateway = gateway;
    return push.publishAndWait(
        signed.get().getBytes(StandardCharsets.UTF_8),
        expected,
        System.nanoTime() + wait.get().toNanos(),
        false,
        out,
        err);
  }

  /** The retained summary and document, as the broker has them now; null if it cannot be read. */
  private Map<String, byte[]> retained(Topics topics, Duration wait, PrintWriter err)
      throws InterruptedException {
    URI url = gateway.url();
    Map<String, byte[]> got = new ConcurrentHashMap<>();
    Mqtt3AsyncClient client =
        MqttConnection.builder(
                url,
                "sentinel-promote-" + UUID.randomUUID().toString().substring(0, 8),
                gateway.caFile)
            .buildAsync();
    client.publishes(
        MqttGlobalPublishFilter.ALL,
        // The first message on each topic after this new session subscribes is its retained
        // copy (or one published since, newer still); the RETAIN flag is not asked for, since
        // Moquette drops it on delivery.
        p -> got.putIfAbsent(p.getTopic().toString(), p.getPayloadAsBytes()));
    try {
      client.connectWith().cleanSession(true).send().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      for (String t : new String[] {topics.rulesetShadow(), topics.ruleset()}) {
        client
            .subscribeWith()
            .topicFilter(t)
            .qos(MqttQos.AT_LEAST_ONCE)
            .send()
            .get(wait.toMillis(), TimeUnit.MILLISECONDS);
      }
      // Retained messages follow the subscription at once; a moment for both to arrive.
      long until = System.nanoTime() + Math.min(wait.toNanos(), TimeUnit.SECONDS.toNanos(2));
      while (got.size() < 2 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      return got;
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      String where = GatewayOptions.where(url);
      err.println(
          "sentinel promote: "
              + (e instanceof java.util.concurrent.ExecutionException x
                  ? io.sentinel.mqtt.BrokerTls.describe(x.getCause(), where)
                  : "no answer from " + where + " within " + gateway.timeout));
      return null;
    } finally {
      client.disconnect();
    }
  }
}
