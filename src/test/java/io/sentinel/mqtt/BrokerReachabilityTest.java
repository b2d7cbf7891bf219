package io.sentinel.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BrokerReachabilityTest {
  @Test
  void retriesForTheSameReason_areSaidOnce_aNewReasonAgain_andReachedResets() {
    BrokerReachability r = new BrokerReachability();
    assertThat(r.failed("Connection refused")).contains("Connection refused");
    assertThat(r.failed("Connection refused")).isEmpty();
    assertThat(r.failed("Connection refused")).isEmpty();
    assertThat(r.failed("unknown host broker.local")).contains("unknown host broker.local");
    assertThat(r.reached()).isTrue();
    assertThat(r.reached()).isFalse();
    assertThat(r.failed("Connection refused")).contains("Connection refused");
  }
}
