package io.sentinel.store.wal;

/** A place in the journal: a segment's number and a byte offset in it. Ordered as the log is. */
public record Position(long segment, long offset) implements Comparable<Position> {
  public static final Position START = new Position(0, 0);

  @Override
  public int compareTo(Position o) {
    int c = Long.compare(segment, o.segment);
    return c != 0 ? c : Long.compare(offset, o.offset);
  }

  public boolean before(Position o) {
    return compareTo(o) < 0;
  }

  @Override
  public String toString() {
    return segment + ":" + offset;
  }
}
