package io.sentinel.point;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A sample's position hint finds its point when it is right and misleads nothing when it is not.
 */
class SamplePositionTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static PointSpec flag(String id) {
    return PointSpec.computed(id, new PointType.Bool(), 0, SourceRef.NONE);
  }

  private final Registry registry = Registry.of(List.of(flag("a"), flag("b"), flag("c")));
  private final PointTable table = new PointTable(registry, T);

  private Sample at(String id, int position) {
    return new Sample(id, Value.TRUE, Quality.LIVE, T, position);
  }

  @Test
  void theRegistrysOwnIdAndPosition_isThatPosition() {
    List<PointSpec> inOrder = registry.inOrder();
    for (int i = 0; i < inOrder.size(); i++) {
      assertThat(table.indexOf(at(inOrder.get(i).id(), i))).isEqualTo(i);
      assertThat(table.indexOf(inOrder.get(i).id())).isEqualTo(i);
    }
  }

  @Test
  void aWrongOrMissingHint_fallsBackToTheId() {
    String b = registry.inOrder().get(1).id();
    assertThat(table.indexOf(at(b, 0))).isEqualTo(1); // another point's position
    assertThat(table.indexOf(at(b, 7))).isEqualTo(1); // past the table
    assertThat(table.indexOf(at(b, -1))).isEqualTo(1); // none
    // An equal id that is not the registry's own string (a revision's registry): found by value.
    assertThat(table.indexOf(at(new String("b".toCharArray()), 1))).isEqualTo(1);
    assertThat(table.indexOf(at("z", 1))).isEqualTo(-1);
  }

  @Test
  void aStaleHint_appliesToTheNamedPoint() {
    String c = registry.inOrder().get(2).id();
    assertThat(table.apply(at(c, 0))).isPresent();
    assertThat(table.state(2).quality()).isEqualTo(Quality.LIVE);
    assertThat(table.state(0).quality()).isEqualTo(Quality.UNKNOWN);
  }

  @Test
  void theHint_isNotPartOfTheObservation() {
    assertThat(at("a", 0)).isEqualTo(at("a", -1)).hasSameHashCodeAs(at("a", -1));
    assertThat(at("a", 0)).isNotEqualTo(at("b", 0));
  }
}
