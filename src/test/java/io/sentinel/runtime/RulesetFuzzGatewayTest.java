package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionGate;
import io.sentinel.site.revision.RevisionMutations;
import io.vertx.core.json.JsonObject;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gateway that trusts no keys and allows unsigned revisions takes them, and a burst of mutated
 * revision documents on its ruleset topic neither crashes it nor activates anything the pure path
 * would not: the gateway's activations are exactly those {@link RevisionGate} makes of the same
 * documents.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "ruleset-fuzz"),
      // Issue 17: a site without keys takes unsigned revisions only when its site.yaml says so.
      @ResourceArg(name = "allow-unsigned-revisions", value = "true")
    })
class RulesetFuzzGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int DOCUMENTS = 40;

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Inject Gateway gateway;

  @Test
  void withoutKeys_unsignedRevisionsActivate_andMutatedOnesNeverCrashOrActivateInPart()
      throws Exception {
    Site site = Site.load(Path.of(".")).site().orElseThrow();
    BrokerClient operator = broker.client("operator");
    long first = gateway.activeRevision() + 1;
    publish(operator, RevisionMutations.yaml(first, broker.site()));
    await().atMost(WAIT).until(() -> gateway.activeRevision() == first);

    // What the pure path makes of the same documents, in the same order.
    RevisionDocument.Checked base =
        RevisionDocument.check(
            "ruleset", RevisionMutations.yaml(first, broker.site()), site.basis(), broker.site());
    RevisionGate.Active expected =
        new RevisionGate.Active(first, base.contentHash(), base.ruleSet().orElseThrow());
    int accepted = 0;
    Random random = new Random(20261130);
    List<String> documents = new ArrayList<>();
    for (int i = 0; i < DOCUMENTS; i++) {
      String valid =
          i % 2 == 0
              ? RevisionMutations.yaml(first + 1 + i, broker.site())
              : RevisionMutations.json(first + 1 + i, broker.site());
      List<RevisionMutations.Mutation> mutations = new ArrayList<>();
      // Every fourth one arrives intact, so that activations interleave with the rejections.
      for (int m = 0; i % 4 != 3 && m <= random.nextInt(3); m++) {
        mutations.add(RevisionMutations.random(random));
      }
      // As the bytes on the wire read back: a split surrogate pair travels as '?'.
      String doc =
          new String(
              RevisionMutations.apply(valid, mutations).getBytes(StandardCharsets.UTF_8),
              StandardCharsets.UTF_8);
      documents.add(doc);
      RevisionGate.Verdict v =
          RevisionGate.decide(
              RevisionDocument.check("ruleset", doc, site.basis(), broker.site()),
              expected,
              new RevisionGate.Trust(Optional.empty(), true),
              "ruleset");
      if (v instanceof RevisionGate.Accept a && !doc.isEmpty()) {
        accepted++;
        expected = new RevisionGate.Active(a.revision(), a.contentHash(), a.ruleSet());
      }
    }
    assertThat(accepted).isGreaterThanOrEqualTo(DOCUMENTS / 4);
    for (String doc : documents) {
      publish(operator, doc);
    }
    long last = first + DOCUMENTS + 1000;
    publish(operator, RevisionMutations.yaml(last, broker.site()));
    await().atMost(WAIT).until(() -> gateway.activeRevision() == last);

    assertThat(gateway.running()).isTrue();
    assertThat(gateway.connected()).isTrue();
    int activations = accepted;
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(broker.recorder().on(broker.topic("events/ruleset-activated")))
                    .hasSize(1 + activations + 1));
    List<JsonObject> activated =
        broker.recorder().on(broker.topic("events/ruleset-activated")).stream()
            .map(BrokerClient.Received::json)
            .toList();
    assertThat(activated.get(activated.size() - 2).getString("subject"))
        .isEqualTo("revision " + expected.revision());
    // And the engine still decides: the example site's start commands are followed by new ones.
    BrokerClient device = broker.client("device");
    device.publish("zigbee2mqtt/boiler-flow", "{\"temperature\": 42}");
    device.publish(broker.topic("points/boiler.ch1.demand"), "false");
    await()
        .atMost(WAIT)
        .until(() -> !broker.recorder().on(broker.topic("commands/boiler.ch1.pump")).isEmpty());
    device.close();
    operator.close();
  }

  private void publish(BrokerClient client, String doc) throws Exception {
    client
        .publishAsync(broker.topic("ruleset"), doc.getBytes(StandardCharsets.UTF_8), true)
        .get(20, TimeUnit.SECONDS);
  }
}
