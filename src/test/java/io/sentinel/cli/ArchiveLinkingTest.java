package io.sentinel.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveLinkingTest {
  static final AtomicBoolean TRIPPED = new AtomicBoolean();

  /** Initialising it would trip the wire: linking must not. */
  static final class Tripwire {
    static {
      TRIPPED.set(true);
    }

    void method() {}
  }

  @TempDir Path dir;

  @Test
  void linksTheClassesTheLogNamesFromJars_withoutInitialisingThem_andDeletesTheLog()
      throws Exception {
    Path log = dir.resolve("classes.log");
    Files.writeString(
        log,
        String.join(
            "\n",
            "[0.010s][info][class,load] java.lang.Object source: shared objects file",
            "io.sentinel.cli.ArchiveLinkingTest$Tripwire source: file:/opt/sentinel/app.jar",
            "[1.2s][info][class,load] org.assertj.core.api.Assertions source: file:/x/assertj.jar",
            "no.such.Clazz source: file:/opt/sentinel/gone.jar",
            "io.sentinel.cli.Main$$Lambda$12/0x0000000800c0a000 source: io.sentinel.cli.Main",
            ""));

    int linked = ArchiveLinking.link(log, getClass().getClassLoader());

    assertThat(linked).isEqualTo(2);
    assertThat(TRIPPED).isFalse();
    assertThat(log).doesNotExist();
  }

  @Test
  void aRunThatMigratedTheSchema_linksNothing_andMarksItsArchiveForDiscarding() throws Exception {
    Path log = dir.resolve("classes.log");
    Files.writeString(
        log,
        "io.sentinel.cli.ArchiveLinkingTest$Tripwire source: file:/opt/sentinel/app.jar\n"
            + "[0.9s][info][class,load] org.flywaydb.core.Flyway source: file:/x/flyway.jar\n");

    assertThat(ArchiveLinking.link(log, getClass().getClassLoader())).isZero();
    assertThat(dir.resolve(ArchiveLinking.DISCARD)).exists();
    assertThat(log).doesNotExist();
  }

  @Test
  void noLog_linksNothing() {
    assertThat(ArchiveLinking.link(dir.resolve("absent.log"), getClass().getClassLoader()))
        .isZero();
  }
}
