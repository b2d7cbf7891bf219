package io.sentinel.cli;

import io.sentinel.audit.AnchorCheck;
import io.sentinel.audit.AuditAnchor;
import io.sentinel.audit.AuditVerifier;
import io.sentinel.site.revision.RevisionKeys;
import io.sentinel.store.Databases;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
              + " reordered record), then checks it against the gateway's latest signed anchor and"
              + " names a cut tail. Exit 0: intact; 1: broken, cut or not the anchor's.")
  static final class Verify implements Callable<Integer> {
    @Parameters(
        paramLabel = "FILE.ndjson",
        arity = "0..1",
        description = "an export (default: the database's audit log)")
    Optional<Path> file;

    @Option(names = "--anchor", paramLabel = "FILE", description = "an anchor as published (JSON)")
    Optional<Path> anchorFile;

    @Option(
        names = "--broker",
        description = "take the retained anchor from this broker (with --site)")
    Optional<String> broker;

    @Option(names = "--site", description = "the site whose anchor to take from --broker")
    Optional<String> site;

    @Option(
        names = "--key",
        paramLabel = "PUB",
        description =
            "the gateway's anchor public key (its audit-anchor.key.pub, PEM or base64; default:"
                + " the key the anchor names, printed to compare with the gateway's start-up line)")
    Optional<Path> key;

    @Mixin DatabaseOption database;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      if (broker.isPresent() != site.isPresent()) {
        spec.commandLine()
            .getErr()
            .println("sentinel audit verify: --broker needs --site, and --site --broker");
        return 2;
      }
      Optional<AuditAnchor> anchor;
      try {
        anchor = anchor();
      } catch (IllegalArgumentException | IOException e) {
        spec.commandLine().getErr().println("sentinel audit verify: " + e.getMessage());
        return 2;
      }
      AuditVerifier.Walk walk = new AuditVerifier.Walk();
      anchor.ifPresent(a -> walk.watch(a.seq()));
      if (file.isPresent()) {
        try (BufferedReader in = Files.newBufferedReader(file.get(), StandardCharsets.UTF_8)) {
          String name = file.get().getFileName().toString();
          Iterator<String> lines = in.lines().iterator();
          int line = 0;
          while (lines.hasNext()
              && walk.accept(new AuditVerifier.Item(name + ":" + ++line, lines.next()))) {
            // each record checked as it is read
          }
        }
      } else {
        try (Databases dbs = database.open()) {
          long[] row = {0};
          dbs.history()
              .audit(
                  line ->
                      walk.accept(
                          new AuditVerifier.Item("audit_log row " + ++row[0], line.text())));
        }
      }
      if (anchor.isEmpty()) {
        out.println(walk.verdict().describe());
        if (walk.verdict().intact()) {
          out.println(
              "no anchor given (--anchor FILE, --broker URL --site S, or --db URL): a cut tail"
                  + " cannot be told from a whole chain");
        }
        return walk.verdict().intact() ? 0 : 1;
      }
      AnchorCheck.Result result =
          AnchorCheck.check(
              walk,
              anchor.get(),
              key.isPresent()
                  ? Optional.of(
                      RevisionKeys.publicBase64(
                          RevisionKeys.publicKey(Files.readString(key.get()))))
                  : Optional.empty());
      out.println(result.message());
      return result.ok() ? 0 : 1;
    }

    /** The anchor to check against: a file, the broker's retained one, or the database's latest. */
    private Optional<AuditAnchor> anchor() throws Exception {
      if (anchorFile.isPresent()) {
        return Optional.of(AuditAnchor.parse(Files.readString(anchorFile.get())));
      }
      if (broker.isPresent()) {
        return Optional.of(AnchorFromBroker.take(broker.get(), site.get(), Duration.ofSeconds(10)));
      }
      if (database.db.isPresent() || file.isEmpty()) {
        try (Databases dbs = database.open()) {
          return dbs.anchors().latest();
        }
      }
      return Optional.empty();
    }
  }
}
