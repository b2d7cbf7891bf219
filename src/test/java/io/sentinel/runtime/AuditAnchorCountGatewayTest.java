package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, "at every N records": with an interval too long to matter (an hour), the real gateway
 * anchors its chain's head each time it is 5 records past the last anchor, and not before; the
 * interval's side is {@link AuditAnchorGatewayTest}'s, the rule itself {@code AnchorCadenceTest}.
 */
@QuarkusTest
@WithTestResource(
    value = BrokerResource.class,
    scope = TestResourceScope.RESTRICTED_TO_CLASS,
    initArgs = {
      @ResourceArg(name = "site-dir", value = "."),
      @ResourceArg(name = "site-prefix", value = "anchor-n"),
      @ResourceArg(name = "sentinel.audit.anchor-records", value = "5"),
      @ResourceArg(name = "sentinel.audit.anchor-interval", value = "1h"),
      @ResourceArg(
          name = "sentinel.audit.anchor-key",
          value = "target/scratch/anchor-count-test/audit-anchor.key")
    })
class AuditAnchorCountGatewayTest {
  private static final long EVERY = 5;

  @BrokerResource.InjectBroker BrokerResource.Broker broker;

  @Test
  void theHeadIsAnchoredEveryNRecords_andNotBefore() throws Exception {
    BrokerClient device = broker.client("device");
    var db = broker.database();
    AuditAnchorGatewayTest.auditRecords(broker, device, 20);
    device.close();
    // The last anchor comes within N records of the head, whatever the head's timing.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                db.longs("SELECT max(seq) FROM audit_log").get(0)
                        - db.longs("SELECT max(seq) FROM audit_anchors").get(0)
                    < EVERY);
    List<Long> anchored = db.longs("SELECT seq FROM audit_anchors ORDER BY id");
    assertThat(anchored).as("the first head, then every 5 records of 20").hasSizeGreaterThan(2);
    for (int i = 1; i < anchored.size(); i++) {
      assertThat(anchored.get(i) - anchored.get(i - 1))
          .as("records between anchors %d and %d: %s", i - 1, i, anchored)
          .isGreaterThanOrEqualTo(EVERY);
    }
  }
}
