package io.sentinel.store;

import io.sentinel.audit.AuditRecord;
import io.sentinel.store.wal.Position;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * How far PostgreSQL has the journal: the position after the last record it committed, the highest
 * sequence number and the audit chain's head in what it committed. Kept in the journal's folder as
 * {@code fed} (one line), so that a start without PostgreSQL knows where the log ends even when
 * every record has been fed. The feeder rewrites it in place after each commit ({@link FedFile});
 * {@link #save} replaces it atomically and durably (a takeover's handover).
 */
record FedState(Position position, long lastSeq, long auditSeq, String auditHead) {
  static final String FILE = "fed";

  static FedState none(Position at) {
    return new FedState(at, 0, 0, AuditRecord.GENESIS);
  }

  static Optional<FedState> read(Path dir) throws IOException {
    Path f = dir.resolve(FILE);
    if (!Files.exists(f)) {
      return Optional.empty();
    }
    String[] p = Files.readString(f).trim().split(" +");
    if (p.length != 5) {
      throw new IOException(f + " is not a journal position (segment offset seq audit-seq hash)");
    }
    return Optional.of(
        new FedState(
            new Position(Long.parseLong(p[0]), Long.parseLong(p[1])),
            Long.parseLong(p[2]),
            Long.parseLong(p[3]),
            p[4]));
  }

  /** The file's line, without its end: segment, offset, seq, audit seq, audit head. */
  String line() {
    return position.segment()
        + " "
        + position.offset()
        + " "
        + lastSeq
        + " "
        + auditSeq
        + " "
        + auditHead;
  }

  void save(Path dir) throws IOException {
    Path tmp = dir.resolve(FILE + ".tmp");
    Files.writeString(tmp, line() + "\n");
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(false);
    }
    Files.move(
        tmp,
        dir.resolve(FILE),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
  }
}
