package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.engine.RestartState;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Seed 003: "reset starts a new generation, so replaying never reuses an id". */
class RestartOverlayTest {
  @Test
  void aCooldownFromTheLocalJournalKeepsItsActionsGeneration() {
    RestartState base =
        new RestartState(List.of(), Optional.empty(), Set.of(), List.of(), List.of());
    Row cooldown =
        Rows.row(
            Table.ACTION_COOLDOWNS,
            7,
            "door-open-alert",
            "0",
            "2026-11-02T05:00:00Z",
            "door-open-alert/0/3/2");
    RestartState overlaid = RestartReader.overlaid(base, List.of(cooldown));
    assertThat(overlaid.cooldowns())
        .singleElement()
        .satisfies(c -> assertThat(c.generation()).isEqualTo(3));
  }
}
