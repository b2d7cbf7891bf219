package io.sentinel.runtime;

import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.rule.Band;
import io.sentinel.store.Journal;

/**
 * A driver whose every hand-over is kept in the log ({@code commands}, state {@code sent}) before
 * it goes out; the outcomes are logged where the driver reports them (the gateway). One per driver:
 * the command plane tells drivers apart by identity.
 */
final class JournaledDriver implements Driver {
  private final Driver driver;
  private final Journal journal;
  private final GatewayMetrics metrics;

  JournaledDriver(Driver driver, Journal journal, GatewayMetrics metrics) {
    this.driver = driver;
    this.journal = journal;
    this.metrics = metrics;
  }

  @Override
  public String name() {
    return driver.name();
  }

  @Override
  public boolean ready() {
    return driver.ready();
  }

  @Override
  public void send(Command command) {
    journal.offerCommand(
        command.commandId(),
        command.pointId(),
        command.kind().wireName(),
        command.value(),
        command.band().map(Band::wireName).orElse(null),
        command.ruleId().orElse(null),
        command.at(),
        "sent");
    metrics.sent(command);
    driver.send(command);
  }
}
