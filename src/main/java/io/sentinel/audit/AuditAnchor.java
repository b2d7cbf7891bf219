package io.sentinel.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The head of the audit chain as the gateway saw it, signed with the gateway's own Ed25519 key:
 * what an export is checked against, so that a tail cut from the log (which leaves an intact,
 * shorter chain) is found. Published retained on {@code sentinel/<site>/audit/anchor} and kept in
 * {@code audit_anchors} (docs/persistence.md, "Audit anchors").
 *
 * @param publicKey the signing key, base64 X.509 SubjectPublicKeyInfo (the gateway logs it at start
 *     and keeps it in its data folder: trust it from there, not from the anchor)
 * @param signature base64 Ed25519 over {@link #signedText()}
 */
public record AuditAnchor(
    String site, long seq, String hash, Instant ts, String publicKey, String signature) {
  private static final String ALGORITHM = "Ed25519";

  /** The canonical JSON of every field but the signature. */
  public String signedText() {
    return CanonicalJson.textOf(signedFields());
  }

  /** The anchor as published: canonical JSON, signature included. */
  public String json() {
    Map<String, Object> m = signedFields();
    m.put("signature", signature);
    return CanonicalJson.textOf(m);
  }

  private Map<String, Object> signedFields() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("site", site);
    m.put("seq", seq);
    m.put("hash", hash);
    m.put("ts", ts.toString());
    m.put("public_key", publicKey);
    return m;
  }

  /** Signs the head {@code (seq, hash)} of {@code site}'s chain at {@code ts}. */
  public static AuditAnchor sign(
      String site, long seq, String hash, Instant ts, PrivateKey key, PublicKey publicKey) {
    AuditAnchor unsigned =
        new AuditAnchor(
            site, seq, hash, ts, Base64.getEncoder().encodeToString(publicKey.getEncoded()), "");
    try {
      Signature s = Signature.getInstance(ALGORITHM);
      s.initSign(key);
      s.update(unsigned.signedText().getBytes(StandardCharsets.UTF_8));
      return new AuditAnchor(
          site, seq, hash, ts, unsigned.publicKey(), Base64.getEncoder().encodeToString(s.sign()));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not an Ed25519 private key: " + e.getMessage(), e);
    }
  }

  /** Whether the signature verifies with {@code publicKeyBase64} (the key one trusts). */
  public boolean verifiesWith(String publicKeyBase64) {
    try {
      PublicKey k =
          KeyFactory.getInstance(ALGORITHM)
              .generatePublic(
                  new X509EncodedKeySpec(Base64.getDecoder().decode(publicKeyBase64.strip())));
      Signature s = Signature.getInstance(ALGORITHM);
      s.initVerify(k);
      s.update(signedText().getBytes(StandardCharsets.UTF_8));
      return s.verify(Base64.getDecoder().decode(signature));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false;
    }
  }

  /** A short name of the signing key: the first 16 hex digits of its SHA-256. */
  public static String fingerprint(String publicKeyBase64) {
    return CanonicalJson.sha256(publicKeyBase64.strip()).substring(0, 16);
  }

  /**
   * An anchor from its published JSON.
   *
   * @throws IllegalArgumentException naming what is missing or wrong
   */
  public static AuditAnchor parse(String json) {
    JsonNode n;
    try {
      n = CanonicalJson.JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("an anchor is JSON: " + e.getOriginalMessage());
    }
    for (String field : new String[] {"site", "seq", "hash", "ts", "public_key", "signature"}) {
      if (n == null || !n.hasNonNull(field)) {
        throw new IllegalArgumentException("an anchor has " + field + "; this one has not");
      }
    }
    try {
      return new AuditAnchor(
          n.get("site").asText(),
          n.get("seq").asLong(),
          n.get("hash").asText(),
          Instant.parse(n.get("ts").asText()),
          n.get("public_key").asText(),
          n.get("signature").asText());
    } catch (java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException("an anchor's ts is an instant: " + e.getMessage());
    }
  }
}
