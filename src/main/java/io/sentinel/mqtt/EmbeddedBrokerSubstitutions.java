package io.sentinel.mqtt;

import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import java.util.function.BiConsumer;

/**
 * The native image's {@link EmbeddedBroker} (docs/native.md): starting refuses, so no Moquette
 * class is reachable and the builder never parses Moquette (whose error reporter needs a bugsnag
 * the build leaves out). Read by the native-image builder only; a JVM never loads this class.
 * {@code NativeConfigTest} checks that each substituted method still exists.
 */
@TargetClass(EmbeddedBroker.class)
final class EmbeddedBrokerSubstitutions {
  private EmbeddedBrokerSubstitutions() {}

  @Substitute
  public static EmbeddedBroker start(String host, int port, BiConsumer<String, byte[]> published) {
    throw EmbeddedBroker.notInNativeImage();
  }

  @Substitute
  static EmbeddedBroker start(
      String host,
      int port,
      BiConsumer<String, byte[]> published,
      io.moquette.broker.security.IAuthorizatorPolicy authorizator) {
    throw EmbeddedBroker.notInNativeImage();
  }

  /** No broker is ever started, so there is none to stop. */
  @Substitute
  public void close() {}
}
