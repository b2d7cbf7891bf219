package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sentinel.store.wal.Position;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentRecordsTest {
  static Position at(long offset) {
    return new Position(1, offset);
  }

  static List<Row> rows(long seq, int n) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<String> values =
          java.util.Collections.nCopies(Table.FIRINGS.columns.size(), String.valueOf(seq + i));
      rows.add(new Row(Table.FIRINGS, seq + i, values));
    }
    return rows;
  }

  @Test
  void recordsThatFollowTheReader_areTakenInOrder_onlyOnceDurable() {
    RecentRecords recent = new RecentRecords(100);
    recent.appended(at(0), at(10), rows(1, 2));
    recent.appended(at(10), at(20), rows(3, 1));
    recent.appended(at(20), at(30), rows(4, 1));

    assertThat(recent.next(at(0), at(20)).rows()).extracting(Row::seq).containsExactly(1L, 2L);
    assertThat(recent.next(at(10), at(20)).to()).isEqualTo(at(20));
    // Written but not yet synced: the feeder waits for it.
    assertThat(recent.next(at(20), at(20))).isNull();
    assertThat(recent.next(at(20), at(30)).rows()).extracting(Row::seq).containsExactly(4L);
    assertThat(recent.next(at(30), at(30))).isNull();
  }

  @Test
  void aReaderBehindWhatIsKept_readsFromDisk_untilItReachesTheKeptRecords() {
    RecentRecords recent = new RecentRecords(3);
    recent.appended(at(0), at(10), rows(1, 2));
    recent.appended(at(10), at(20), rows(3, 1));
    recent.appended(at(20), at(30), rows(4, 1)); // four rows: the first record goes
    assertThat(recent.next(at(0), at(30))).isNull();
    // The reader read the first record from disk: the kept ones follow on.
    assertThat(recent.next(at(10), at(30)).rows()).extracting(Row::seq).containsExactly(3L);
    // A reader past a kept record (it read it from disk) drops it.
    assertThat(recent.next(at(30), at(30))).isNull();
    recent.appended(at(30), at(40), rows(5, 1));
    assertThat(recent.next(at(30), at(40)).rows()).extracting(Row::seq).containsExactly(5L);
  }

  @Test
  void aRecordIntoTheNextSegment_followsTheEndOfTheLastOne() {
    RecentRecords recent = new RecentRecords(100);
    recent.appended(at(90), new Position(2, 10), rows(1, 1));
    assertThat(recent.next(at(90), new Position(2, 10)).to()).isEqualTo(new Position(2, 10));
  }
}
