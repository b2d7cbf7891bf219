package io.sentinel.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A journal record's payload: the rows of one pass (or of one other offer), in order. Format
 * (docs/adr/0008-local-write-ahead-journal.md): a version byte {@code 1}, then per row the table's
 * ordinal (one byte), its {@code seq} (eight bytes) and each column as a varint of its UTF-8 length
 * plus one ({@code 0} for SQL NULL) followed by the bytes. The record's frame carries its length
 * and checksum.
 */
final class RowCodec {
  private static final byte VERSION = 1;
  private static final Table[] TABLES = Table.values();

  private byte[] buf = new byte[1 << 12];
  private int pos;

  /** Encodes into this codec's buffer (reused: valid until the next call). */
  byte[] encode(List<Row> rows) {
    pos = 0;
    ensure(1);
    buf[pos++] = VERSION;
    for (Row r : rows) {
      ensure(9);
      buf[pos++] = (byte) r.table().ordinal();
      long s = r.seq();
      for (int i = 7; i >= 0; i--) {
        buf[pos++] = (byte) (s >>> (i * 8));
      }
      for (String v : r.values()) {
        if (v == null) {
          ensure(1);
          buf[pos++] = 0;
          continue;
        }
        putString(v);
      }
    }
    return buf;
  }

  /** The length of the last {@link #encode}. */
  int length() {
    return pos;
  }

  private void putString(String v) {
    int n = v.length();
    boolean ascii = true;
    for (int i = 0; i < n && ascii; i++) {
      ascii = v.charAt(i) < 0x80;
    }
    if (ascii) {
      // Most values (numbers, ids, instants) are ASCII: copied without a byte[] of their own.
      putVarint(n + 1);
      ensure(n);
      for (int i = 0; i < n; i++) {
        buf[pos++] = (byte) v.charAt(i);
      }
      return;
    }
    byte[] b = v.getBytes(StandardCharsets.UTF_8);
    putVarint(b.length + 1);
    ensure(b.length);
    System.arraycopy(b, 0, buf, pos, b.length);
    pos += b.length;
  }

  private void putVarint(int v) {
    ensure(5);
    while ((v & ~0x7F) != 0) {
      buf[pos++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  private void ensure(int n) {
    if (pos + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
    }
  }

  /** The rows of a payload; a payload this build cannot read is an error naming why. */
  static List<Row> decode(byte[] p) {
    if (p.length == 0 || p[0] != VERSION) {
      throw new IllegalArgumentException(
          "journal record of version " + (p.length == 0 ? "none" : p[0]) + ", this build reads 1");
    }
    List<Row> rows = new ArrayList<>();
    int[] at = {1};
    while (at[0] < p.length) {
      int ordinal = p[at[0]++];
      if (ordinal < 0 || ordinal >= TABLES.length) {
        throw new IllegalArgumentException("journal record names table " + ordinal);
      }
      Table t = TABLES[ordinal];
      long seq = 0;
      for (int i = 0; i < 8; i++) {
        seq = (seq << 8) | (p[at[0]++] & 0xFF);
      }
      String[] values = new String[t.columns.size()];
      for (int c = 0; c < values.length; c++) {
        int len = varint(p, at) - 1;
        if (len >= 0) {
          values[c] = new String(p, at[0], len, StandardCharsets.UTF_8);
          at[0] += len;
        }
      }
      rows.add(new Row(t, seq, Arrays.asList(values)));
    }
    return rows;
  }

  private static int varint(byte[] p, int[] at) {
    int v = 0;
    int shift = 0;
    while (true) {
      byte b = p[at[0]++];
      v |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
      shift += 7;
    }
  }
}
