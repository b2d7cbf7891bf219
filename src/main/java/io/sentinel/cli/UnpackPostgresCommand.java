package io.sentinel.cli;

import io.sentinel.store.EmbeddedDatabase;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sentinel unpack-postgres DIR}: the embedded PostgreSQL's binaries unpacked into DIR. Run
 * by a gateway whose JVM is too small to unpack them itself (store.EmbeddedBinaries); hidden, as
 * nobody needs to type it.
 */
@Command(
    name = "unpack-postgres",
    hidden = true,
    description = "Unpacks the embedded PostgreSQL's binaries into DIR (run by the gateway).")
public final class UnpackPostgresCommand implements Callable<Integer> {
  @Parameters(paramLabel = "DIR", description = "the binaries folder (SENTINEL_HOME/pg-bin)")
  Path dir;

  @Override
  public Integer call() throws Exception {
    EmbeddedDatabase.unpack(dir);
    return 0;
  }
}
