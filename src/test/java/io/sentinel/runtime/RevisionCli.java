package io.sentinel.runtime;

import io.sentinel.cli.CliRunner;
import io.sentinel.site.Site;
import io.sentinel.site.revision.RevisionKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sentinel push} and {@code sentinel promote} as an operator runs them against a gateway
 * test's broker and site, signing with the test keys.
 */
final class RevisionCli {
  /** The test keys: {@code NAME.key} beside the {@code keys.yaml} the gateway trusts. */
  static final Path KEYS = Path.of("src/test/resources/revisions");

  private final BrokerResource.Broker broker;
  private final Path dir;

  /**
   * @param dir where the documents pushed are written
   */
  RevisionCli(BrokerResource.Broker broker, Path dir) {
    this.broker = broker;
    this.dir = dir;
  }

  /** {@code sentinel push FILE --key K --review-key R}; either null leaves that signature out. */
  CliRunner push(String document, String keyName, String reviewKeyName) throws IOException {
    Path file = Files.createTempFile(dir, "revision", ".yaml");
    Files.writeString(file, document);
    List<String> args = new ArrayList<>(List.of("push", file.toString()));
    args.addAll(gateway());
    if (keyName != null) {
      args.addAll(List.of("--key", KEYS.resolve(keyName + ".key").toString()));
    }
    if (reviewKeyName != null) {
      args.addAll(List.of("--review-key", KEYS.resolve(reviewKeyName + ".key").toString()));
    }
    return CliRunner.run(args.toArray(String[]::new));
  }

  /** {@code sentinel push FILE} of a file as it stands, followed by {@code options} (a key). */
  CliRunner push(Path file, String... options) {
    List<String> args = new ArrayList<>(List.of("push", file.toString()));
    args.addAll(gateway());
    args.addAll(List.of(options));
    return CliRunner.run(args.toArray(String[]::new));
  }

  /** {@code sentinel promote N --key ops.key [--from FILE]}. */
  CliRunner promote(long revision, Path from) {
    List<String> args = new ArrayList<>(List.of("promote", Long.toString(revision)));
    args.addAll(gateway());
    args.addAll(List.of("--key", KEYS.resolve("ops.key").toString()));
    if (from != null) {
      args.addAll(List.of("--from", from.toString()));
    }
    return CliRunner.run(args.toArray(String[]::new));
  }

  /** A test key's private key, to sign a document by hand. */
  static PrivateKey key(String name) {
    return RevisionKeys.privateKey(Site.read(KEYS.resolve(name + ".key")));
  }

  private List<String> gateway() {
    return List.of("--broker", broker.url(), "--site", broker.site(), "--timeout", "20s");
  }
}
