package io.sentinel.nativeimage;

/**
 * Whether this process is a GraalVM native image, read from the property the image sets at run time
 * (GraalVM's {@code ImageInfo} reads the same one; its SDK is not on our class path). The native
 * image carries no embedded broker or database (docs/native.md): on a Pi the gateway talks to a
 * real Mosquitto and PostgreSQL.
 */
public final class NativeImage {
  private NativeImage() {}

  public static boolean running() {
    return "runtime".equals(System.getProperty("org.graalvm.nativeimage.imagecode"));
  }

  /** The refusal of an embedded server in a native image, naming the setting that avoids it. */
  public static IllegalStateException noEmbedded(String server, String setting) {
    return new IllegalStateException(
        "the native image has no embedded "
            + server
            + ": set "
            + setting
            + " to a running one (docs/native.md)");
  }
}
