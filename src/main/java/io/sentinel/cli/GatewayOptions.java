package io.sentinel.cli;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options of the commands that publish a revision to a gateway ({@code sentinel push} and
 * {@code sentinel promote}, a picocli mixin of both): its broker and site, the keys to sign with,
 * and how long to wait for its answer.
 */
final class GatewayOptions {
  @Option(
      names = "--broker",
      required = true,
      description = "the gateway's MQTT broker, e.g. tcp://gateway.local:1883")
  String broker;

  @Option(names = "--site", required = true, description = "the site (topic root sentinel/<site>/)")
  String site;

  @Option(
      names = "--key",
      description = "an Ed25519 private key (PKCS#8 PEM, e.g. from sentinel keygen) to sign with")
  Optional<Path> key = Optional.empty();

  @Option(
      names = "--review-key",
      description =
          "a review key's private key, to add the review_signature a change to an interlock or"
              + " safety rule needs")
  Optional<Path> reviewKey = Optional.empty();

  @Option(
      names = "--ca-file",
      description = "for an ssl:// broker: the CA certificate (PEM) its certificate must chain to")
  Optional<Path> caFile = Optional.empty();

  @Option(
      names = "--timeout",
      defaultValue = "30s",
      description = "how long to wait for the gateway's answer (default: ${DEFAULT-VALUE})")
  String timeout;

  /** The broker's URL; a bare {@code host:port} is {@code tcp://}. */
  URI url() {
    return URI.create(broker.contains("://") ? broker : "tcp://" + broker);
  }

  /** The broker as an error message names it: {@code tcp://host:port}. */
  static String where(URI url) {
    return url.getScheme() + "://" + url.getHost() + ":" + url.getPort();
  }

  /** The {@code --timeout}, or empty when it is not a duration (said on {@code err}). */
  Optional<Duration> wait(String command, PrintWriter err) {
    Optional<Duration> wait = io.sentinel.site.yaml.YamlFile.parseDuration(timeout);
    if (wait.isEmpty()) {
      err.println(command + ": --timeout " + timeout + " is not a duration (e.g. 30s)");
    }
    return wait;
  }
}
