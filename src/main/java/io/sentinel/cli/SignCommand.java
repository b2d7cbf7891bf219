package io.sentinel.cli;

import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionDocument;
import io.sentinel.site.revision.RevisionKeys;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sentinel sign FILE --key KEY [--review]}: adds the author's {@code signature}, or with
 * {@code --review} a reviewer's {@code review_signature}, to a revision document, so that author
 * and reviewer can each sign on their own machine before one of them pushes it (docs/revisions.md).
 */
@Command(
    name = "sign",
    description =
        "Signs a rule-set revision document: the author's signature, or with --review the"
            + " reviewer's review_signature (a change to an interlock or safety rule needs both).")
public final class SignCommand implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", description = "a revision document (YAML or JSON)")
  Path file;

  @Option(
      names = "--key",
      required = true,
      description = "an Ed25519 private key (PKCS#8 PEM, e.g. from sentinel keygen)")
  Path key;

  @Option(names = "--review", description = "sign as the reviewer (review_signature)")
  boolean review;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "OUT",
      description = "where to write the signed document (default: FILE itself)")
  Optional<Path> output;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (!Files.isRegularFile(file)) {
      err.println("sentinel sign: " + file + " is not a file");
      return 2;
    }
    Optional<String> signed =
        sign(
            Site.read(file),
            review ? Optional.empty() : Optional.of(key),
            review ? Optional.of(key) : Optional.empty(),
            "sentinel sign: " + file,
            err);
    if (signed.isEmpty()) {
      return 1;
    }
    Path to = output.orElse(file);
    Files.writeString(to, signed.get());
    out.println(
        "wrote "
            + to
            + " with "
            + (review ? RevisionDocument.REVIEW_SIGNATURE : RevisionDocument.SIGNATURE)
            + " by "
            + key);
    return 0;
  }

  /**
   * The document with the author's signature ({@code key}) and a reviewer's ({@code reviewKey})
   * added, each when given; empty, and said on {@code err} after {@code what}, when it cannot be.
   */
  static Optional<String> sign(
      String text, Optional<Path> key, Optional<Path> reviewKey, String what, PrintWriter err) {
    try {
      if (key.isPresent()) {
        text =
            RevisionDocument.withSignature(
                text, RevisionKeys.privateKey(Site.read(key.get())), RevisionDocument.SIGNATURE);
      }
      if (reviewKey.isPresent()) {
        text =
            RevisionDocument.withSignature(
                text,
                RevisionKeys.privateKey(Site.read(reviewKey.get())),
                RevisionDocument.REVIEW_SIGNATURE);
      }
      return Optional.of(text);
    } catch (IllegalArgumentException e) {
      err.println(what + ": cannot sign: " + e.getMessage());
      return Optional.empty();
    }
  }
}
