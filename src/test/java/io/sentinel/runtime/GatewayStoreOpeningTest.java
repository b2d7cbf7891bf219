package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The store opened beside the site's loading ({@link GatewayStore#opening}): its failure reaches
 * the start as the store threw it, and a start that fails first leaves nothing open behind it.
 */
class GatewayStoreOpeningTest {
  @Test
  void aStoreThatDidNotOpen_failsTheStartWithItsOwnError() {
    CompletableFuture<AutoCloseable> opening =
        CompletableFuture.failedFuture(new IllegalStateException("SEN-DB-051 the store did not"));
    assertThatThrownBy(() -> GatewayStore.opened(opening))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("SEN-DB-051");
  }

  @Test
  void aStartThatFailsFirst_waitsForTheStoreAndClosesIt() {
    AtomicBoolean closed = new AtomicBoolean();
    CompletableFuture<AutoCloseable> opening = new CompletableFuture<>();
    new Thread(
            () -> {
              try {
                Thread.sleep(200); // still opening when the start gives up
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              opening.complete(() -> closed.set(true));
            })
        .start();
    GatewayStore.abandon(opening);
    assertThat(closed).isTrue();
  }

  @Test
  void aStartThatFailsFirst_whileTheStoreFailsToo_saysNothingMore() {
    assertThatCode(
            () ->
                GatewayStore.abandon(
                    CompletableFuture.failedFuture(new IllegalStateException("no database"))))
        .doesNotThrowAnyException();
  }
}
