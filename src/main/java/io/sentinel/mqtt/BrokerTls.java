package io.sentinel.mqtt;

import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS and credentials to the site's broker: the CA a broker's certificate must chain to ({@code
 * sentinel.mqtt.ca-file}, PEM; else the JVM's trust store), and a failed connection said by its
 * cause (an untrusted certificate, refused credentials) rather than by the client's exception.
 */
public final class BrokerTls {
  private BrokerTls() {}

  /** A trust manager factory trusting exactly the certificates of a PEM file. */
  public static TrustManagerFactory trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      Collection<? extends Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new IllegalArgumentException(
            "sentinel.mqtt.ca-file " + caFile + " holds no certificate (PEM)");
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : certs) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      return tmf;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "sentinel.mqtt.ca-file " + caFile + " is not a readable PEM certificate: " + e, e);
    }
  }

  private static String refused(String broker, Object code, boolean credentials) {
    return credentials
        ? "the broker at "
            + broker
            + " refused the credentials ("
            + code
            + "): check the user and password in sentinel.mqtt.url (user:password@host)"
        : "the broker at " + broker + " refused the connection (" + code + ")";
  }

  /** Why a connection to {@code broker} failed, in an operator's words. */
  public static String describe(Throwable error, String broker) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof Mqtt3ConnAckException c) {
        Mqtt3ConnAckReturnCode code = c.getMqttMessage().getReturnCode();
        return refused(
            broker,
            code,
            code == Mqtt3ConnAckReturnCode.BAD_USER_NAME_OR_PASSWORD
                || code == Mqtt3ConnAckReturnCode.NOT_AUTHORIZED);
      }
      if (t instanceof com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException c) {
        var code = c.getMqttMessage().getReasonCode();
        return refused(
            broker,
            code,
            code == Mqtt5ConnAckReasonCode.BAD_USER_NAME_OR_PASSWORD
                || code == Mqtt5ConnAckReasonCode.NOT_AUTHORIZED);
      }
      if (t instanceof CertificateException || t instanceof SSLException) {
        String why = String.valueOf(rootMessage(t));
        return "TLS to "
            + broker
            + " failed: "
            + (why.contains("PKIX") || why.contains("certification path")
                ? "the broker's certificate is not signed by a trusted CA (set"
                    + " sentinel.mqtt.ca-file to the site's CA certificate, PEM)"
                : why);
      }
    }
    return String.valueOf(error.getMessage());
  }

  /** The failure's own words, its cause's when it wraps one (connection refused, unknown host). */
  static String reason(Throwable cause) {
    if (cause == null) {
      return "closed";
    }
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String own = String.valueOf(cause.getMessage());
    return root == cause || root.getMessage() == null || own.contains(root.getMessage())
        ? own
        : own + ": " + root.getMessage();
  }

  private static String rootMessage(Throwable t) {
    Throwable r = t;
    while (r.getCause() != null) {
      r = r.getCause();
    }
    return r.getMessage() == null ? r.toString() : r.getMessage();
  }
}
