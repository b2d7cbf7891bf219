package io.sentinel.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sentinel.door.Door;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Rows PostgreSQL refused, set aside so the log flows on: the table {@code dead_letters} (the row's
 * table, seq, values as a JSON array with every control character escaped, PostgreSQL's reason),
 * else, if even that is refused, {@code dead-letters.ndjson} in the journal's folder.
 */
final class DeadLetters {
  private static final Logger LOG = Logger.getLogger(DeadLetters.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String INSERT =
      "INSERT INTO dead_letters (seq, table_name, row_values, reason) VALUES ($1, $2, $3, $4)"
          + " ON CONFLICT DO NOTHING";

  private final RowWriter writer;
  private final Pool pool;
  private final Path file;
  private final AtomicLong count = new AtomicLong();

  DeadLetters(RowWriter writer, Pool pool, Path file) {
    this.writer = writer;
    this.pool = pool;
    this.file = file;
  }

  long count() {
    return count.get();
  }

  /** Sets a refused row aside; throws only when PostgreSQL is away (then the batch is retried). */
  void setAside(Row row, String reason) throws RowWriter.WriteFailed {
    String values;
    try {
      values = JSON.writeValueAsString(row.values());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    String why = Door.escaped(reason == null ? "" : reason);
    try {
      writer.await(
          pool.preparedQuery(INSERT).execute(Tuple.of(row.seq(), row.table().name, values, why)));
    } catch (RowWriter.WriteFailed e) {
      if (!e.refused()) {
        throw e;
      }
      toFile(row, values, why + "; dead_letters refused it too: " + Door.escaped(e.getMessage()));
    }
    count.incrementAndGet();
  }

  private void toFile(Row row, String values, String why) {
    try {
      String line =
          JSON.createObjectNode()
                  .put("table", row.table().name)
                  .put("seq", row.seq())
                  .put("values", values)
                  .put("reason", why)
                  .toString()
              + "\n";
      Files.writeString(
          file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      LOG.errorf(
          "SEN-DB-063 a refused %s row (seq %d) could not be set aside anywhere: %s",
          row.table().name, row.seq(), e.getMessage());
    }
  }
}
