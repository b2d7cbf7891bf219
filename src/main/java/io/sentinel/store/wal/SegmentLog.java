package io.sentinel.store.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The journal on disk (docs/adr/0008-local-write-ahead-journal.md): append-only segment files
 * {@code wal-<n>.seg} in one folder, each a run of records {@code
 * [length:int][crc32c:int][payload]} (big-endian, the checksum over the payload). One thread
 * appends ({@link #append}) and forces ({@link #force}: {@code fdatasync}, so a batch of appends
 * costs one sync), any number read ({@link #reader}) up to what was forced. Appends gather in a
 * buffer that the force (or a full buffer, or a new segment) writes out in one call: a record a
 * pass, each its own {@code write}, was a tenth of the writer's time (docs/load.md, session 18).
 * Opening recovers: every complete record is kept and the first incomplete or corrupt one is cut
 * with everything after it in its file, and named ({@link #tornTails()}).
 */
public final class SegmentLog implements AutoCloseable {
  static final int HEADER = 8;

  /** Appends gathered before one write; a larger record is written on its own. */
  static final int GATHER = 64 * 1024;

  private final Path dir;
  private final long segmentBytes;

  /** Segment number to its size in bytes (what the writer has written to it). */
  private final ConcurrentSkipListMap<Long, Long> segments = new ConcurrentSkipListMap<>();

  private final List<TornTail> tornTails;
  private final Object channels = new Object();
  private final List<FileChannel> retired = new ArrayList<>();
  private final CRC32C crc = new CRC32C();
  private ByteBuffer header = ByteBuffer.allocate(HEADER);

  /** Appended, not yet written: {@code [0, position)}, of which {@code [0, written)} was. */
  private final ByteBuffer gathered = ByteBuffer.allocateDirect(GATHER);

  private int written;
  private volatile FileChannel current;
  private long currentSegment;
  private long currentSize;

  private SegmentLog(Path dir, long segmentBytes, List<TornTail> tornTails) {
    this.dir = dir;
    this.segmentBytes = segmentBytes;
    this.tornTails = tornTails;
  }

  /** Opens (and recovers) the journal in {@code dir}, created if missing. */
  public static SegmentLog open(Path dir, long segmentBytes) throws IOException {
    Files.createDirectories(dir);
    List<TornTail> torn = new ArrayList<>();
    SegmentLog log = new SegmentLog(dir, segmentBytes, torn);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String n = f.getFileName().toString();
        if (n.startsWith("wal-") && n.endsWith(".seg")) {
          log.segments.put(Long.parseLong(n.substring(4, n.length() - 4)), Files.size(f));
        }
      }
    }
    for (long s : List.copyOf(log.segments.keySet())) {
      log.recover(s).ifPresent(torn::add);
    }
    return log;
  }

  /** What recovery cut, oldest first (empty after a clean stop). */
  public List<TornTail> tornTails() {
    return List.copyOf(tornTails);
  }

  public Path dir() {
    return dir;
  }

  /** Bytes in the folder's segments. */
  public long bytes() {
    long b = 0;
    for (long v : segments.values()) {
      b += v;
    }
    return b;
  }

  public int segmentCount() {
    return segments.size();
  }

  /** The oldest position still on disk. */
  public Position first() {
    var e = segments.firstEntry();
    return e == null ? end() : new Position(e.getKey(), 0);
  }

  /** Where the next record will be written (the writer's view). */
  public Position end() {
    var e = segments.lastEntry();
    return e == null ? new Position(1, 0) : new Position(e.getKey(), e.getValue());
  }

  /** The bytes a payload of {@code length} takes on disk. */
  public static int framed(int length) {
    return HEADER + length;
  }

  /**
   * Appends one record (the writer's thread only) to the page cache; durable after the next {@link
   * #force}. Returns the position after it.
   */
  public Position append(byte[] payload, int length) throws IOException {
    if (current == null || currentSize > 0 && currentSize + framed(length) > segmentBytes) {
      roll();
    }
    crc.reset();
    crc.update(payload, 0, length);
    int sum = (int) crc.getValue();
    if (framed(length) > gathered.remaining()) {
      write();
    }
    if (framed(length) <= gathered.remaining()) {
      gathered.putInt(length).putInt(sum).put(payload, 0, length);
    } else {
      header.clear();
      header.putInt(length).putInt(sum).flip();
      ByteBuffer body = ByteBuffer.wrap(payload, 0, length);
      ByteBuffer[] both = {header, body};
      while (header.hasRemaining() || body.hasRemaining()) {
        current.write(both);
      }
    }
    currentSize += framed(length);
    segments.put(currentSegment, currentSize);
    return new Position(currentSegment, currentSize);
  }

  /**
   * Writes what was gathered to the current segment. A write that fails part-way is taken up where
   * it stopped by the next call (the writer retries until the disk takes it).
   */
  private void write() throws IOException {
    ByteBuffer out = gathered.duplicate().flip().position(written);
    while (out.hasRemaining()) {
      written += current.write(out);
    }
    gathered.clear();
    written = 0;
  }

  private void roll() throws IOException {
    // A reopened log starts a fresh segment after what recovery kept, never appends to one. The
    // feeder never deletes the newest segment, so numbers only grow across restarts.
    long next = segments.isEmpty() ? 1 : segments.lastKey() + 1;
    if (current != null) {
      write();
    }
    FileChannel c =
        FileChannel.open(file(next), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    synchronized (channels) {
      if (current != null) {
        retired.add(current); // forced and closed by the next force()
      }
      current = c;
    }
    currentSegment = next;
    currentSize = 0;
    segments.put(next, 0L);
    forceDirectory();
  }

  /**
   * Hands what was appended so far to the kernel, unforced: it survives this process, not a power
   * cut. The appending thread only.
   */
  public void writeOut() throws IOException {
    if (current != null) {
      write();
    }
  }

  /** Forces what was appended so far to disk ({@code fdatasync}); the appending thread only. */
  public void force() throws IOException {
    if (current != null) {
      write();
    }
    List<FileChannel> old;
    FileChannel now;
    synchronized (channels) {
      old = List.copyOf(retired);
      retired.clear();
      now = current;
    }
    for (FileChannel c : old) {
      c.force(false);
      c.close();
    }
    if (now != null) {
      now.force(false);
    }
  }

  /** Deletes every segment before {@code segment} (read to its end by PostgreSQL's feeder). */
  public void deleteBefore(long segment) throws IOException {
    for (long s : List.copyOf(segments.headMap(segment).keySet())) {
      if (s == currentSegment && current != null) {
        continue;
      }
      Files.deleteIfExists(file(s));
      segments.remove(s);
    }
  }

  /** A reader from {@code from} (a record boundary). */
  public Reader reader(Position from) {
    return new Reader(from);
  }

  @Override
  public void close() throws IOException {
    force();
    synchronized (channels) {
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }

  Path file(long segment) {
    return dir.resolve(String.format("wal-%020d.seg", segment));
  }

  private java.util.Optional<TornTail> recover(long segment) throws IOException {
    Path f = file(segment);
    try (Reader r = new Reader(new Position(segment, 0))) {
      long size = segments.get(segment);
      Position limit = new Position(segment, size);
      String why = null;
      try {
        while (r.next(limit) != null) {
          // every complete record is kept
        }
      } catch (Corrupt e) {
        why = e.getMessage();
      }
      long good = r.position().offset();
      if (why == null && good == size) {
        return java.util.Optional.empty();
      }
      try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
        c.truncate(good);
        c.force(true);
      }
      segments.put(segment, good);
      return java.util.Optional.of(
          new TornTail(f, good, size - good, why == null ? "incomplete record" : why));
    }
  }

  private void forceDirectory() {
    try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
      c.force(true);
    } catch (IOException e) {
      // Some file systems cannot sync a folder; the segment's own syncs still hold its records.
    }
  }

  /** A record that is cut short or fails its checksum. */
  public static final class Corrupt extends IOException {
    Corrupt(String message) {
      super(message);
    }
  }

  /** Reads records in order from a position, across segments, never past a given limit. */
  public final class Reader implements AutoCloseable {
    private final CRC32C check = new CRC32C();
    private ByteBuffer buf = ByteBuffer.allocate(1 << 20).limit(0);
    private long bufStart;
    private FileChannel channel;
    private long channelSegment = -1;
    private Position position;

    Reader(Position from) {
      this.position = from;
    }

    /** The position after the last record read. */
    public Position position() {
      return position;
    }

    /**
     * Goes on from {@code to}, the end of a record the caller has from elsewhere (the journal's
     * recent records, kept in memory): the next {@link #next} reads the record after it.
     */
    public void skipTo(Position to) {
      position = to;
    }

    /**
     * The next record's payload, or null when the reader has reached {@code limit} (a position the
     * writer has passed) or the end of what is on disk.
     */
    public byte[] next(Position limit) throws IOException {
      while (position.before(limit)) {
        long seg = position.segment();
        Long size = segments.get(seg);
        long end = seg == limit.segment() ? limit.offset() : size == null ? 0 : size;
        if (size == null || position.offset() >= end) {
          Long next = segments.higherKey(seg);
          if (next == null || next > limit.segment()) {
            return null;
          }
          position = new Position(next, 0);
          continue;
        }
        if (end - position.offset() < HEADER) {
          throw new Corrupt("record header cut short");
        }
        fill(seg, HEADER, end);
        int at = (int) (position.offset() - bufStart);
        int length = buf.getInt(at);
        int sum = buf.getInt(at + 4);
        if (length <= 0 || length > end - position.offset() - HEADER) {
          throw new Corrupt(length <= 0 ? "no record (length " + length + ")" : "record cut short");
        }
        fill(seg, HEADER + length, end);
        at = (int) (position.offset() - bufStart);
        byte[] payload = new byte[length];
        buf.get(at + HEADER, payload);
        check.reset();
        check.update(payload);
        if ((int) check.getValue() != sum) {
          throw new Corrupt("checksum mismatch");
        }
        position = new Position(seg, position.offset() + HEADER + length);
        return payload;
      }
      return null;
    }

    /** Makes {@code n} bytes from the position readable in the buffer. */
    private void fill(long seg, int n, long end) throws IOException {
      long off = position.offset();
      if (channelSegment == seg && off >= bufStart && off + n <= bufStart + buf.limit()) {
        return;
      }
      if (channelSegment != seg) {
        closeChannel();
        channel = FileChannel.open(file(seg), StandardOpenOption.READ);
        channelSegment = seg;
      }
      if (buf.capacity() < n) {
        buf = ByteBuffer.allocate(Integer.highestOneBit(n) << 1);
      }
      buf.clear();
      buf.limit((int) Math.min(buf.capacity(), end - off));
      while (buf.hasRemaining()) {
        if (channel.read(buf, off + buf.position()) < 0) {
          break;
        }
      }
      buf.flip();
      bufStart = off;
      if (buf.limit() < n) {
        throw new Corrupt("record cut short");
      }
    }

    private void closeChannel() throws IOException {
      if (channel != null) {
        channel.close();
        channel = null;
        channelSegment = -1;
      }
    }

    @Override
    public void close() throws IOException {
      closeChannel();
    }
  }
}
