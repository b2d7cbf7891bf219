package io.sentinel.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * src/main/dist/install.sh in a scratch root (--root): twice gives the same tree, an uninstall
 * keeps exactly the site, the credentials and the data, --purge leaves the root as it was. And the
 * unit passes systemd-analyze verify with nothing to say.
 */
class InstallScriptTest {
  private static final Path SCRIPT = Path.of("src/main/dist/install.sh").toAbsolutePath();
  @TempDir Path tmp;
  private Path root;
  private Path app;

  @BeforeEach
  void scratchRoot() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "the script installs as root");
    root = Files.createDirectories(tmp.resolve("root/etc"));
    root = root.getParent();
    // The shadow files useradd --prefix edits: root's own lines, as on a fresh system.
    for (String file : List.of("passwd", "group", "shadow", "gshadow")) {
      String rootLine =
          Files.readAllLines(Path.of("/etc", file)).stream()
              .filter(l -> l.startsWith("root:"))
              .findFirst()
              .orElseThrow();
      Files.writeString(root.resolve("etc/" + file), rootLine + "\n");
    }
    // An application tree shaped like target/quarkus-app (package runs after the tests).
    app = Files.createDirectories(tmp.resolve("quarkus-app/lib/main"));
    app = app.getParent().getParent();
    Files.writeString(app.resolve("quarkus-run.jar"), "jar");
    Files.writeString(app.resolve("lib/main/a.jar"), "a");
  }

  @Test
  void installTwice_sameTree_uninstallKeepsSiteAndData_purgeLeavesNothing() throws Exception {
    Map<String, String> before = tree(root);

    run("--root", root.toString(), "--app", app.toString(), "--no-start");
    Map<String, String> once = tree(root);
    run("--root", root.toString(), "--app", app.toString(), "--no-start");
    assertThat(tree(root)).isEqualTo(once);

    assertThat(Files.readString(root.resolve("opt/sentinel/edge.options")))
        .isEqualTo(Files.readString(DeploymentFilesTest.OPTIONS));
    assertThat(Files.readString(root.resolve("etc/systemd/system/sentinel.service")))
        .isEqualTo(Files.readString(DeploymentFilesTest.UNIT));
    assertThat(Files.exists(root.resolve("opt/sentinel/quarkus-run.jar"))).isTrue();
    assertThat(Files.exists(root.resolve("etc/sentinel/site/seeds/points.yaml"))).isTrue();
    assertThat(mode(root.resolve("etc/sentinel/sentinel.env"))).isEqualTo("rw-------");
    assertThat(Files.getAttribute(root.resolve("etc/sentinel/sentinel.env"), "unix:uid"))
        .isEqualTo(0);
    assertThat(Files.readString(root.resolve("etc/passwd")))
        .containsPattern("(?m)^sentinel:x:\\d+:\\d+:.*:/var/lib/sentinel:/usr/sbin/nologin$");
    assertThat(Files.readString(root.resolve("etc/group")))
        .containsPattern("(?m)^gpio:x:\\d+:sentinel$");
    int uid = (int) Files.getAttribute(root.resolve("var/lib/sentinel"), "unix:uid");
    assertThat(uid).isNotZero();
    if (onPath("systemctl")) {
      assertThat(
              Files.isSymbolicLink(
                  root.resolve("etc/systemd/system/multi-user.target.wants/sentinel.service")))
          .isTrue();
    }

    // The operator's own site and credentials survive a reinstall.
    Files.writeString(root.resolve("etc/sentinel/site/seeds/points.yaml"), "points: {}\n");
    Files.writeString(root.resolve("etc/sentinel/sentinel.env"), "SENTINEL_DB_URL=x\n");
    run("--root", root.toString(), "--app", app.toString(), "--no-start");
    assertThat(Files.readString(root.resolve("etc/sentinel/site/seeds/points.yaml")))
        .isEqualTo("points: {}\n");
    assertThat(Files.readString(root.resolve("etc/sentinel/sentinel.env")))
        .isEqualTo("SENTINEL_DB_URL=x\n");

    run("--root", root.toString(), "--uninstall");
    assertThat(tree(root).keySet())
        .filteredOn(p -> !before.containsKey(p))
        .allMatch(
            p ->
                p.startsWith("etc/sentinel")
                    || p.equals("var")
                    || p.equals("var/lib")
                    || p.equals("var/lib/sentinel"),
            "only the site, the credentials and the data are left")
        .contains(
            "etc/sentinel/site/seeds/points.yaml", "etc/sentinel/sentinel.env", "var/lib/sentinel");
    assertThat(Files.readString(root.resolve("etc/passwd"))).doesNotContain("sentinel");

    run("--root", root.toString(), "--app", app.toString(), "--no-start");
    run("--root", root.toString(), "--uninstall", "--purge");
    assertThat(tree(root)).isEqualTo(before);
  }

  @Test
  void unit_passesSystemdAnalyzeVerify() throws Exception {
    assumeTrue(onPath("systemd-analyze"), "systemd-analyze is not installed");
    // The unit as installed in the scratch root, its command pointed at the launcher installed
    // there (verify checks that the command is an executable file).
    run("--root", root.toString(), "--app", app.toString(), "--no-start");
    Path unit = tmp.resolve("sentinel.service");
    Files.writeString(
        unit,
        Files.readString(root.resolve("etc/systemd/system/sentinel.service"))
            .replace("ExecStart=/opt/sentinel/", "ExecStart=" + root + "/opt/sentinel/"));
    assertThat(root.resolve("opt/sentinel/sentinel-java")).isExecutable();
    Process p =
        new ProcessBuilder("systemd-analyze", "verify", "--man=no", unit.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    // verify exits 0 on an unknown key or a bad value: it only says so, so it must say nothing.
    assertThat(out).isEmpty();
    assertThat(p.exitValue()).isZero();
  }

  private void run(String... args) throws Exception {
    String[] command =
        Stream.concat(Stream.of("bash", SCRIPT.toString()), Stream.of(args)).toArray(String[]::new);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("install.sh %s:%n%s", String.join(" ", args), out).isZero();
  }

  /**
   * Every path under {@code dir} with its type, mode, owner and content hash; shadow-utils' own
   * backups (etc/passwd- ...) are left out: useradd and userdel write them on any system.
   */
  private static Map<String, String> tree(Path dir) throws IOException {
    Map<String, String> tree = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        String rel = dir.relativize(p).toString();
        if (rel.isEmpty() || rel.matches("etc/[a-z]+-")) {
          continue;
        }
        String what;
        if (Files.isSymbolicLink(p)) {
          what = "link " + Files.readSymbolicLink(p);
        } else {
          what =
              mode(p)
                  + " "
                  + Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)
                  + ":"
                  + Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS)
                  + (Files.isDirectory(p) ? " dir" : " " + sha1(Files.readAllBytes(p)));
        }
        tree.put(rel, what);
      }
    }
    return tree;
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
  }

  private static String sha1(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean onPath(String command) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, command))) {
        return true;
      }
    }
    return false;
  }
}
