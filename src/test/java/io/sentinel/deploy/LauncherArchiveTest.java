package io.sentinel.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * src/main/jvm/sentinel-java's class-data archive: written by a first run, checked by the next
 * start in a JVM of its own and kept only if it maps, one per JVM and build. A stand-in java
 * records each command line and plays the JVM's part: it writes the archive it is asked to write,
 * and refuses (as a real JVM crashes on) an archive that is torn. What the archive does to a real
 * start is measured by src/main/dist/measure-start.sh, not here.
 */
class LauncherArchiveTest {
  private static final Path LAUNCHER = Path.of("src/main/jvm/sentinel-java").toAbsolutePath();

  @TempDir Path tmp;
  private Path java;
  private Path calls;
  private Path jar;
  private Path home;
  private Path cds;

  @BeforeEach
  void standIns() throws IOException {
    calls = tmp.resolve("calls");
    java = tmp.resolve("bin/java");
    Files.createDirectories(java.getParent());
    Files.writeString(
        java,
        """
        #!/usr/bin/env bash
        echo "$*" >> "$CALLS"
        for a in "$@"; do
          case $a in
            -XX:ArchiveClassesAtExit=*) printf whole > "${a#*=}" ;;
            -XX:SharedArchiveFile=*) [[ $(cat "${a#*=}") == whole ]] || exit 134 ;;
          esac
        done
        """);
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    jar = tmp.resolve("app/quarkus-run.jar");
    Files.createDirectories(tmp.resolve("app/lib/main"));
    Files.writeString(jar, "jar");
    Files.writeString(tmp.resolve("app/lib/main/a.jar"), "a");
    home = tmp.resolve("home");
    cds = home.resolve("cds");
  }

  @Test
  void theFirstRunWritesIt_theNextChecksAndMapsIt_laterOnesMapIt() throws Exception {
    List<String> first = launch("run", "--site", "s");
    assertThat(first).hasSize(1);
    assertThat(first.get(0))
        .containsPattern("-XX:ArchiveClassesAtExit=\\S+/cds/app-\\d+\\.jsa\\.new ")
        // the run's class-loading log, named to the gateway, which links those classes at exit
        .containsPattern(
            "-Xlog:class\\+load=info:file=\"(\\S+/cds/classes\\.log)\":none"
                + " -Dio\\.sentinel\\.cds\\.class-log=\\1 ");
    assertThat(archives()).singleElement().asString().endsWith(".jsa.new");

    List<String> second = launch("run", "--site", "s");
    assertThat(second).hasSize(2);
    assertThat(second.get(0))
        .contains("-Xshare:on", "-XX:+VerifySharedSpaces", ".jsa.new", " --version");
    assertThat(second.get(1))
        .containsPattern("-XX:SharedArchiveFile=\\S+/app-\\d+\\.jsa -Xmx64m -jar ")
        .doesNotContain("class-log");
    assertThat(archives()).singleElement().asString().endsWith(".jsa");

    assertThat(launch("run")).singleElement().asString().contains("-XX:SharedArchiveFile=");
  }

  @Test
  void aTornArchive_isDeletedAndWrittenAgain_notMapped() throws Exception {
    launch("run");
    Path written = archives().get(0);
    Files.writeString(written, "wh"); // cut short, as by a power cut while the JVM wrote it

    List<String> next = launch("run");
    assertThat(next).hasSize(2);
    assertThat(next.get(1)).doesNotContain("SharedArchiveFile").contains("ArchiveClassesAtExit");
    assertThat(Files.readString(written)).isEqualTo("whole");
  }

  @Test
  void anArchiveMarkedForDiscarding_isDeleted_andTheNextRunWritesAnother() throws Exception {
    launch("run");
    Files.writeString(cds.resolve("discard"), ""); // the run migrated the schema

    List<String> next = launch("run");
    assertThat(next).singleElement().asString().contains("ArchiveClassesAtExit");
    assertThat(cds.resolve("discard")).doesNotExist();
    assertThat(archives()).singleElement().asString().endsWith(".jsa.new");
    assertThat(launch("run")).hasSize(2).last().asString().contains("-XX:SharedArchiveFile=");
  }

  @Test
  void anotherBuild_namesAnotherArchive_andTheOldOneGoes() throws Exception {
    launch("run");
    launch("run");
    Path before = archives().get(0);
    Files.writeString(tmp.resolve("app/lib/main/a.jar"), "a newer build");

    assertThat(launch("run")).singleElement().asString().contains("ArchiveClassesAtExit");
    assertThat(archives()).singleElement().isNotEqualTo(before);
  }

  @Test
  void otherCommands_helpAndOff_takeNoArchive_andTheOperatorsOptionsComeLast() throws Exception {
    assertThat(launch("validate", "--site", "s")).singleElement().asString().doesNotContain("-XX:");
    assertThat(launch("run", "--help")).singleElement().asString().doesNotContain("-XX:");
    assertThat(archives()).isEmpty();

    assertThat(launchWith("off", "run")).singleElement().asString().doesNotContain("-XX:");
    launch("run");
    launch("run");
    assertThat(launchWith("on", "run"))
        .singleElement()
        .asString()
        .containsPattern("-XX:SharedArchiveFile=\\S+ -Xmx64m -jar ");
  }

  @Test
  void theOperatorsOptions_reachJavaAsWritten_evenWithAStar() throws Exception {
    Files.writeString(tmp.resolve("-Dwhat=x"), "a file the second glob matches");
    assertThat(launchWithOptions("on", "-Xlog:gc*:file=gc.log -Xmx64m", "run"))
        .singleElement()
        .asString()
        .contains(" -Xlog:gc*:file=gc.log -Xmx64m -jar ");
    assertThat(launchWithOptions("off", "-Dwhat=* -Xmx64m", "validate"))
        .singleElement()
        .asString()
        .contains(" -Dwhat=* -Xmx64m -jar ");
  }

  private List<String> launch(String... args) throws Exception {
    return launchWith("on", args);
  }

  private List<String> launchWith(String cdsSetting, String... args) throws Exception {
    return launchWithOptions(cdsSetting, "-Xmx64m", args);
  }

  private List<String> launchWithOptions(String cdsSetting, String javaOpts, String... args)
      throws Exception {
    Files.deleteIfExists(calls);
    List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString(), jar.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command).directory(tmp.toFile()).redirectErrorStream(true);
    pb.environment().put("SENTINEL_JAVA", java.toString());
    pb.environment().put("SENTINEL_HOME", home.toString());
    pb.environment().put("SENTINEL_CDS", cdsSetting);
    pb.environment().put("SENTINEL_JAVA_OPTS", javaOpts);
    pb.environment().put("CALLS", calls.toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return Files.readAllLines(calls);
  }

  private List<Path> archives() throws IOException {
    if (!Files.isDirectory(cds)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(cds)) {
      return s.sorted().toList();
    }
  }
}
