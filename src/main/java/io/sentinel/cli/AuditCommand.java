package io.sentinel.cli;

import io.sentinel.audit.AuditVerifier;
import io.sentinel.store.Databases;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "audit",
    description = "The hash-chained audit log: export it as NDJSON, or verify it.",
    subcommands = {AuditCommand.Export.class, AuditCommand.Verify.class})
public final class AuditCommand {

  @Command(
      name = "export",
      description = "Writes the audit log as NDJSON, one record a line, in chain order.")
  static final class Export implements Callable<Integer> {
    @Option(
        names = {"-o", "--output"},
        paramLabel = "FILE",
        description = "where to write (default: standard output)")
    Optional<Path> output;

    @Mixin DatabaseOption database;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      long[] n = {0};
      try (Databases dbs = database.open();
          Writer file =
              output.isPresent()
                  ? Files.newBufferedWriter(output.get(), StandardCharsets.UTF_8)
                  : null) {
        Writer w = file != null ? file : out;
        dbs.history()
            .audit(
                line -> {
                  try {
                    w.write(line.text());
                    w.write('\n');
                    n[0]++;
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
      }
      if (output.isPresent()) {
        out.println("exported " + n[0] + " audit records to " + output.get());
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "verify",
      description =
          "Checks the chain record by record and names the first broken link (an edited, removed or"
              + " reordered record). Exit 0: intact; 1: broken.")
  static final class Verify implements Callable<Integer> {
    @Parameters(
        paramLabel = "FILE.ndjson",
        arity = "0..1",
        description = "an export (default: the database's audit log)")
    Optional<Path> file;

    @Mixin DatabaseOption database;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      AuditVerifier.Verdict verdict;
      if (file.isPresent()) {
        try (BufferedReader in = Files.newBufferedReader(file.get(), StandardCharsets.UTF_8)) {
          String name = file.get().getFileName().toString();
          Iterator<String> lines = in.lines().iterator();
          verdict =
              AuditVerifier.verify(
                  new Iterator<>() {
                    int line;

                    @Override
                    public boolean hasNext() {
                      return lines.hasNext();
                    }

                    @Override
                    public AuditVerifier.Item next() {
                      line++;
                      return new AuditVerifier.Item(name + ":" + line, lines.next());
                    }
                  });
        }
      } else {
        try (Databases dbs = database.open()) {
          verdict = dbs.history().verifyAudit();
        }
      }
      out.println(verdict.describe());
      return verdict.intact() ? 0 : 1;
    }
  }
}
