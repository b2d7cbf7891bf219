package io.sentinel.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Rows PostgreSQL could not take yet, on disk, in order (docs/adr/0005-spool-format.md):
 * append-only NDJSON segment files ({@code spool-<n>.ndjson}, one row a line), fsync'd after every
 * append, read back from a position kept in {@code position} and written to PostgreSQL in the same
 * order. A segment read to its end is deleted. A last line cut short by a crash was never
 * acknowledged, and is dropped at open.
 */
final class Spool {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final long maxBytes;
  private final long segmentBytes;

  /** Segment number to its size in bytes. */
  private final TreeMap<Long, Long> segments = new TreeMap<>();

  private long readSegment;
  private long readOffset;
  private FileChannel appendChannel;
  private long appendSegment = -1;

  Spool(Path dir, long maxBytes, long segmentBytes) throws IOException {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.segmentBytes = segmentBytes;
    Files.createDirectories(dir);
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String n = f.getFileName().toString();
        if (n.startsWith("spool-") && n.endsWith(".ndjson")) {
          segments.put(Long.parseLong(n.substring(6, n.length() - 7)), Files.size(f));
        }
      }
    }
    if (!segments.isEmpty()) {
      dropTornTail(segments.lastKey());
    }
    Path position = dir.resolve("position");
    if (Files.exists(position)) {
      String[] p = Files.readString(position).trim().split(" ");
      readSegment = Long.parseLong(p[0]);
      readOffset = Long.parseLong(p[1]);
    } else {
      readSegment = segments.isEmpty() ? 0 : segments.firstKey();
      readOffset = 0;
    }
    segments.headMap(readSegment).keySet().forEach(this::deleteQuietly);
    segments.headMap(readSegment).clear();
  }

  boolean isEmpty() {
    return segments.isEmpty()
        || (segments.size() == 1
            && segments.firstKey() == readSegment
            && segments.firstEntry().getValue() <= readOffset);
  }

  /** Bytes on disk (a segment counts whole until it is read to its end and deleted). */
  long bytes() {
    return segments.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Appends rows in order and forces them to disk. Returns how many were taken: fewer than given
   * when the bound is reached (the caller must say so loudly; nothing is dropped here silently).
   */
  int append(List<Row> rows) throws IOException {
    if (rows.isEmpty()) {
      return 0;
    }
    int taken = 0;
    StringBuilder chunk = new StringBuilder();
    long size = bytes();
    for (Row r : rows) {
      String line = encode(r) + "\n";
      int len = line.getBytes(StandardCharsets.UTF_8).length;
      if (size + len > maxBytes) {
        break;
      }
      if (appendChannel == null
          || segments.get(appendSegment) + chunk.length() + len > segmentBytes) {
        write(chunk);
        chunk.setLength(0);
        roll();
      }
      chunk.append(line);
      size += len;
      taken++;
    }
    write(chunk);
    if (appendChannel != null) {
      appendChannel.force(false);
    }
    return taken;
  }

  private void write(StringBuilder chunk) throws IOException {
    if (chunk.length() == 0) {
      return;
    }
    ByteBuffer bytes = ByteBuffer.wrap(chunk.toString().getBytes(StandardCharsets.UTF_8));
    int n = bytes.remaining();
    while (bytes.hasRemaining()) {
      appendChannel.write(bytes);
    }
    segments.merge(appendSegment, (long) n, Long::sum);
  }

  private void roll() throws IOException {
    if (appendChannel != null) {
      appendChannel.force(false);
      appendChannel.close();
    }
    appendSegment = segments.isEmpty() ? Math.max(readSegment, 1) : segments.lastKey() + 1;
    if (segments.isEmpty()) {
      readSegment = appendSegment;
      readOffset = 0;
      savePosition();
    }
    appendChannel =
        FileChannel.open(
            file(appendSegment),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND);
    segments.putIfAbsent(appendSegment, Files.size(file(appendSegment)));
    forceDirectory();
  }

  /** Up to {@code max} rows from the read position, without moving it. */
  Batch peek(int max) throws IOException {
    List<Row> rows = new ArrayList<>();
    long segment = readSegment;
    long offset = readOffset;
    while (rows.size() < max && segments.containsKey(segment)) {
      long size = segments.get(segment);
      if (offset >= size) {
        Long next = segments.higherKey(segment);
        if (next == null) {
          break;
        }
        segment = next;
        offset = 0;
        continue;
      }
      try (RandomAccessFile f = new RandomAccessFile(file(segment).toFile(), "r")) {
        f.seek(offset);
        byte[] buf = new byte[(int) Math.min(size - offset, 8 << 20)];
        f.readFully(buf);
        int start = 0;
        for (int i = 0; i < buf.length && rows.size() < max; i++) {
          if (buf[i] == '\n') {
            rows.add(decode(new String(buf, start, i - start, StandardCharsets.UTF_8)));
            offset += i - start + 1;
            start = i + 1;
          }
        }
        if (start == 0 && rows.size() < max) {
          break; // a line longer than the buffer cannot happen: rows are small
        }
      }
    }
    return new Batch(rows, segment, offset);
  }

  /** The rows of a {@link #peek}, and where the read position goes once they are written. */
  record Batch(List<Row> rows, long segment, long offset) {}

  /** Moves the read position past a batch PostgreSQL has committed; drops finished segments. */
  void advance(Batch b) throws IOException {
    readSegment = b.segment();
    readOffset = b.offset();
    for (Long s : List.copyOf(segments.headMap(readSegment).keySet())) {
      deleteQuietly(s);
      segments.remove(s);
    }
    if (isEmpty() && appendSegment == readSegment && appendChannel != null) {
      // Drained: start afresh so the folder does not keep a spent segment.
      appendChannel.close();
      appendChannel = null;
      deleteQuietly(readSegment);
      segments.remove(readSegment);
      readSegment = readSegment + 1;
      readOffset = 0;
      appendSegment = -1;
    }
    savePosition();
  }

  /** Every row still waiting, oldest first (at open, to learn the highest sequence numbers). */
  List<Row> pending() throws IOException {
    List<Row> all = new ArrayList<>();
    Batch b = peek(Integer.MAX_VALUE);
    all.addAll(b.rows());
    return all;
  }

  void close() throws IOException {
    if (appendChannel != null) {
      appendChannel.close();
      appendChannel = null;
    }
  }

  private void savePosition() throws IOException {
    Path tmp = dir.resolve("position.tmp");
    Files.writeString(tmp, readSegment + " " + readOffset + "\n");
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    Files.move(
        tmp,
        dir.resolve("position"),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }

  private void dropTornTail(long segment) throws IOException {
    Path f = file(segment);
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = c.size();
      long end = size;
      ByteBuffer one = ByteBuffer.allocate(1);
      while (end > 0) {
        one.clear();
        c.read(one, end - 1);
        if (one.get(0) == '\n') {
          break;
        }
        end--;
      }
      if (end < size) {
        c.truncate(end);
        c.force(true);
      }
      segments.put(segment, end);
    }
  }

  private void forceDirectory() {
    try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
      c.force(true);
    } catch (IOException e) {
      // Some file systems cannot sync a directory; the segment's own fsync still holds its rows.
    }
  }

  private Path file(long segment) {
    return dir.resolve(String.format("spool-%020d.ndjson", segment));
  }

  private void deleteQuietly(long segment) {
    try {
      Files.deleteIfExists(file(segment));
    } catch (IOException e) {
      // A segment that cannot be deleted is read past: its rows are not written twice.
    }
  }

  static String encode(Row r) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("t", r.table().name);
    o.put("seq", r.seq());
    ArrayNode v = o.putArray("v");
    r.values().forEach(v::add);
    return o.toString();
  }

  static Row decode(String line) throws IOException {
    JsonNode o = JSON.readTree(line);
    Table t =
        Table.named(o.path("t").asText())
            .orElseThrow(() -> new IOException("spool line names no known table: " + line));
    List<String> values = new ArrayList<>();
    o.path("v").forEach(n -> values.add(n.isNull() ? null : n.asText()));
    while (t == Table.DERIVED_SNAPSHOTS && values.size() < t.columns.size()) {
      // Spooled before snapshots kept latches (V2) or overrides (V3): it held none.
      values.add("[]");
    }
    return new Row(t, o.path("seq").asLong(), values);
  }
}
