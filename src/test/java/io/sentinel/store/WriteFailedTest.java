package io.sentinel.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.pgclient.PgException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** What PostgreSQL's failure to take a batch says: a row's fault, an answer, or an absence. */
class WriteFailedTest {
  private static RowWriter.WriteFailed failed(Throwable cause) {
    return new RowWriter.WriteFailed(cause.getMessage(), cause);
  }

  private static PgException answer(String sqlState) {
    return new PgException("an error (test)", "ERROR", sqlState, null);
  }

  @Test
  void anErrorOfTheServer_isAnAnswer_notARowsFault() {
    RowWriter.WriteFailed missingTable = failed(answer("42P01"));
    assertThat(missingTable.answered()).isTrue();
    assertThat(missingTable.refused()).isFalse();
    assertThat(failed(answer("53100")).answered()).as("disk full").isTrue();
  }

  @Test
  void aRowsFault_isRefused() {
    assertThat(failed(answer("23505")).refused()).isTrue();
    assertThat(failed(answer("22P02")).refused()).isTrue();
  }

  @Test
  void aStoppingServer_aConnectionError_andNoConnection_areAbsences() {
    assertThat(failed(answer("57P01")).answered()).as("administrator shutdown").isFalse();
    assertThat(failed(answer("57P03")).answered()).as("not yet accepting").isFalse();
    assertThat(failed(answer("08006")).answered()).as("connection failure").isFalse();
    assertThat(failed(new ConnectException("Connection refused")).answered()).isFalse();
  }
}
