package io.sentinel.site.revision;

import io.sentinel.site.yaml.Problems;
import io.sentinel.site.yaml.YamlFile;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * The Ed25519 public keys a site trusts for rule-set revisions ({@code keys.yaml}), and the signing
 * and verifying of a revision's canonical body. A key marked {@code review: true} may sign a
 * revision that adds, changes or removes an interlock or safety rule. Public keys are X.509
 * SubjectPublicKeyInfo (PEM, or its base64 body on one line), private keys PKCS#8 PEM: what {@code
 * openssl genpkey -algorithm ed25519} and {@code sentinel keygen} write.
 */
public final class RevisionKeys {
  private static final String ALGORITHM = "Ed25519";
  private static final Set<String> KEY_FIELDS = Set.of("public_key", "review", "description");

  public record TrustedKey(String name, PublicKey key, boolean review) {}

  private final List<TrustedKey> keys;

  public RevisionKeys(List<TrustedKey> keys) {
    this.keys = List.copyOf(keys);
  }

  public List<TrustedKey> keys() {
    return keys;
  }

  /**
   * Reads a keys file: {@code keys: { <name>: { public_key: <PEM or base64>, review: true|false }
   * }}. Every problem goes to {@code problems}; a file with errors must not be trusted.
   */
  public static RevisionKeys load(String file, String text, Problems problems) {
    YamlFile yaml = new YamlFile(file, problems);
    List<TrustedKey> out = new ArrayList<>();
    yaml.parse(text)
        .flatMap(root -> yaml.mapping(root, "keys file", "", Set.of("keys")))
        .flatMap(top -> top.get("keys"))
        .flatMap(n -> yaml.mapping(n, "keys", "", Set.of()))
        .ifPresent(
            all ->
                all.entries().forEach((name, node) -> key(yaml, name, node).ifPresent(out::add)));
    if (out.isEmpty() && !problems.hasErrors()) {
      problems.error(
          RevisionCodes.KEY_001, file, 0, "", "keys: no key listed; remove the file to trust none");
    }
    return new RevisionKeys(out);
  }

  private static Optional<TrustedKey> key(YamlFile yaml, String name, Node node) {
    String what = "key " + name;
    Optional<YamlFile.Fields> f = yaml.mapping(node, what, "", KEY_FIELDS);
    if (f.isEmpty()) {
      return Optional.empty();
    }
    Optional<Node> pk = f.get().get("public_key");
    if (pk.isEmpty()) {
      yaml.error(node, RevisionCodes.KEY_002, "", what + ": public_key is missing");
      return Optional.empty();
    }
    boolean review =
        f.get().get("review").flatMap(n -> yaml.bool(n, what + " review", "")).orElse(false);
    Optional<String> text = yaml.text(pk.get(), what + " public_key", "");
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new TrustedKey(name, publicKey(text.get()), review));
    } catch (IllegalArgumentException e) {
      yaml.error(pk.get(), RevisionCodes.KEY_003, "", what + ": " + e.getMessage());
      return Optional.empty();
    }
  }

  /** The trusted key whose signature {@code signature} (base64) is over {@code body}, if any. */
  public Optional<TrustedKey> signer(String body, String signature) {
    byte[] sig;
    try {
      sig = Base64.getDecoder().decode(signature.strip());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    byte[] data = body.getBytes(StandardCharsets.UTF_8);
    for (TrustedKey k : keys) {
      try {
        Signature verifier = Signature.getInstance(ALGORITHM);
        verifier.initVerify(k.key());
        verifier.update(data);
        if (verifier.verify(sig)) {
          return Optional.of(k);
        }
      } catch (GeneralSecurityException e) {
        // A signature of the wrong shape verifies against no key.
      }
    }
    return Optional.empty();
  }

  /** The base64 Ed25519 signature of {@code body} (UTF-8). */
  public static String sign(PrivateKey key, String body) {
    try {
      Signature signer = Signature.getInstance(ALGORITHM);
      signer.initSign(key);
      signer.update(body.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(signer.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key: " + e.getMessage(), e);
    }
  }

  public static KeyPair generate() {
    try {
      return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Java 17 has Ed25519", e);
    }
  }

  /** An Ed25519 public key from PEM ({@code BEGIN PUBLIC KEY}) or the base64 of its DER. */
  public static PublicKey publicKey(String text) {
    try {
      return KeyFactory.getInstance(ALGORITHM)
          .generatePublic(new X509EncodedKeySpec(der(text, "PUBLIC KEY")));
    } catch (GeneralSecurityException | ClassCastException e) {
      throw new IllegalArgumentException(
          "not an Ed25519 public key (X.509 SubjectPublicKeyInfo, PEM or base64)");
    }
  }

  /** An Ed25519 private key from PKCS#8 PEM ({@code BEGIN PRIVATE KEY}) or the base64 of it. */
  public static PrivateKey privateKey(String text) {
    try {
      return KeyFactory.getInstance(ALGORITHM)
          .generatePrivate(new PKCS8EncodedKeySpec(der(text, "PRIVATE KEY")));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key (PKCS#8, PEM or base64)");
    }
  }

  public static String publicPem(PublicKey key) {
    return pem("PUBLIC KEY", key.getEncoded());
  }

  public static String privatePem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** The one-line base64 form of a public key, as keys.yaml takes it. */
  public static String publicBase64(PublicKey key) {
    return Base64.getEncoder().encodeToString(key.getEncoded());
  }

  private static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  private static byte[] der(String text, String label) {
    String body =
        text.replace("-----BEGIN " + label + "-----", "")
            .replace("-----END " + label + "-----", "")
            .replaceAll("\\s", "");
    try {
      return Base64.getDecoder().decode(body);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not base64: " + e.getMessage());
    }
  }
}
