package io.sentinel.cli;

import io.sentinel.site.revision.RevisionKeys;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sentinel keygen NAME}: an Ed25519 key pair for signing revisions, and its keys.yaml line.
 */
@Command(
    name = "keygen",
    description =
        "Writes an Ed25519 key pair to sign rule-set revisions (NAME.key, private; NAME.pub) and"
            + " prints the keys.yaml entry a gateway trusts it by.")
public final class KeygenCommand implements Callable<Integer> {
  @Parameters(paramLabel = "NAME", description = "the key's name, e.g. ops or safety-officer")
  String name;

  @Option(names = "--review", description = "mark the printed entry as a review key")
  boolean review;

  @Option(names = "--dir", defaultValue = ".", description = "where to write the files")
  Path dir;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    Path privateFile = dir.resolve(name + ".key");
    Path publicFile = dir.resolve(name + ".pub");
    if (Files.exists(privateFile)) {
      spec.commandLine()
          .getErr()
          .println("sentinel keygen: " + privateFile + " exists: not replaced");
      return 2;
    }
    KeyPair pair = RevisionKeys.generate();
    Files.createDirectories(dir);
    Files.writeString(privateFile, RevisionKeys.privatePem(pair.getPrivate()));
    try {
      Files.setPosixFilePermissions(privateFile, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the file keeps its default permissions
    }
    Files.writeString(publicFile, RevisionKeys.publicPem(pair.getPublic()));
    out.println("wrote " + privateFile + " (keep it secret) and " + publicFile);
    out.println("trust it on a gateway with this entry in the site's keys.yaml:");
    out.println("keys:");
    out.println(
        "  "
            + name
            + ": { public_key: \""
            + RevisionKeys.publicBase64(pair.getPublic())
            + "\""
            + (review ? ", review: true" : "")
            + " }");
    out.println(
        "# then restart the gateway, and sign with it: "
            + (review
                ? "sentinel sign REVISION.yaml --review --key " + privateFile
                : "sentinel sign REVISION.yaml --key " + privateFile)
            + " (or sentinel push REVISION.yaml --key AUTHOR.key --review-key REVIEWER.key"
            + " --broker URL --site SITE; docs/revisions.md)");
    return 0;
  }
}
