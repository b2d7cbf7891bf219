package io.sentinel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.store.CoreLock;
import io.sentinel.store.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two cores of one site on one database (the real PostgreSQL, else the embedded one): exactly one
 * holds the lock and commands; a terminated lock session fences its core within a second and the
 * other takes over with the next epoch (docs/standby.md).
 */
class CoreRoleTest {
  // The lease: three checks, 300 ms, under the grace.
  private static final CoreRole.Settings FAST = settings(50, 100, 450, 1);

  private final TestDatabase db = TestDatabase.create();

  /** Poll, check and grace in milliseconds, the lock connection's timeout in seconds. */
  private static CoreRole.Settings settings(long poll, long check, long grace, long timeout) {
    return new CoreRole.Settings(
        Duration.ofMillis(poll),
        Duration.ofMillis(check),
        Duration.ofMillis(grace),
        Duration.ofSeconds(timeout));
  }

  private final List<CoreRole> roles = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    roles.forEach(CoreRole::close);
    db.close();
  }

  /** A core that counts its tenures and commands through its fence as long as it is told to. */
  private static final class Core implements CoreRole.Core {
    final String name;
    final AtomicInteger activations = new AtomicInteger();
    final AtomicInteger losses = new AtomicInteger();
    volatile long lostAt;
    volatile long fencedAt;

    /** When each command the fence let through reached the driver behind it. */
    final List<Long> sentAt = new CopyOnWriteArrayList<>();

    Driver fenced;

    Core(String name) {
      this.name = name;
    }

    @Override
    public void activate(long epoch) {
      activations.incrementAndGet();
    }

    @Override
    public void fenced(String why) {
      fencedAt = System.nanoTime();
    }

    @Override
    public void lost(String why) {
      lostAt = System.nanoTime();
      losses.incrementAndGet();
    }
  }

  private CoreRole role(Core core, List<String> sent) {
    return role(core, sent, db.url(), FAST);
  }

  private CoreRole role(
      Core core, List<String> sent, io.sentinel.store.DbUrl url, CoreRole.Settings settings) {
    CoreRole r = new CoreRole(url, "site-x", core.name, settings, core);
    core.fenced =
        r.fence(
            new Driver() {
              @Override
              public String name() {
                return "test";
              }

              @Override
              public boolean ready() {
                return true;
              }

              @Override
              public void send(Command command) {
                core.sentAt.add(System.nanoTime());
                sent.add(core.name);
              }
            });
    roles.add(r);
    r.start();
    return r;
  }

  @Test
  void twoCores_exactlyOneCommands_aTerminatedSessionHandsOverWithTheNextEpoch() throws Exception {
    List<String> sent = new CopyOnWriteArrayList<>();
    Core a = new Core("core-a");
    Core b = new Core("core-b");
    CoreRole ra = role(a, sent);
    CoreRole rb = role(b, sent);
    Drive drive = new Drive(ra, a, rb, b);
    await().atMost(Duration.ofSeconds(5)).until(() -> ra.holds() || rb.holds());
    long epoch = Math.max(ra.epoch(), rb.epoch());
    assertThat(epoch).isEqualTo(1);
    for (int handover = 0; handover < 3; handover++) {
      CoreRole holder = ra.holds() ? ra : rb;
      CoreRole waiting = holder == ra ? rb : ra;
      Core holderCore = holder == ra ? a : b;
      Thread.sleep(300);
      assertThat(waiting.state()).isEqualTo(CoreRole.State.STANDBY);
      int losses = holderCore.losses.get();
      long terminated = System.nanoTime();
      assertThat(db.terminateLockSessions()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(1)).until(() -> holderCore.losses.get() == losses + 1);
      assertThat((holderCore.lostAt - terminated) / 1_000_000).isLessThan(1000);
      await().atMost(Duration.ofSeconds(5)).until(() -> ra.holds() || rb.holds());
      long next = Math.max(ra.epoch(), rb.epoch());
      assertThat(next).isEqualTo(epoch + 1);
      epoch = next;
    }
    drive.close();
    assertThat(drive.both.get()).isZero();
    assertThat(sent).contains("core-a", "core-b").hasSizeGreaterThan(100);
    // While one core held the lock the other's sends never got through: the runs alternate.
    assertThat(runs(sent)).isLessThanOrEqualTo(4);
    assertThat(db.longs("SELECT epoch FROM core_epoch WHERE site = 'site-x'")).containsExactly(4L);
  }

  /** Both cores command every millisecond through their fences; counts the moments both hold. */
  private static final class Drive implements AutoCloseable {
    final AtomicInteger both = new AtomicInteger();
    private final AtomicBoolean on = new AtomicBoolean(true);
    private final Thread thread;

    Drive(CoreRole ra, Core a, CoreRole rb, Core b) {
      thread =
          new Thread(
              () -> {
                while (on.get()) {
                  if (ra.holds() && rb.holds()) {
                    both.incrementAndGet();
                  }
                  if (a.fenced.ready()) {
                    a.fenced.send(null);
                  }
                  if (b.fenced.ready()) {
                    b.fenced.send(null);
                  }
                  try {
                    Thread.sleep(1);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      on.set(false);
      thread.join();
    }
  }

  /** How many runs of one core's sends the sequence has. */
  private static int runs(List<String> sent) {
    int runs = sent.isEmpty() ? 0 : 1;
    for (int i = 1; i < sent.size(); i++) {
      if (!sent.get(i).equals(sent.get(i - 1))) {
        runs++;
      }
    }
    return runs;
  }

  /**
   * core-a reaches the database through a link that goes silent: its next check waits for an answer
   * that does not come (for 5 s, this test's socket timeout), and the server keeps its session and
   * lock all the while, so neither the check nor the client can say the lock is lost. The fence
   * closes by itself within a second all the same (three checks of 200 ms after the last one that
   * was answered); the other core takes over only once the session has really ended.
   */
  @Test
  void aCheckThatNeverAnswers_theFenceClosesByItselfWithinASecond_theOtherOnceTheSessionEnds()
      throws Exception {
    CoreRole.Settings silent = settings(50, 200, 1500, 5);
    io.sentinel.store.DbUrl direct = db.url();
    List<String> sent = new CopyOnWriteArrayList<>();
    Core a = new Core("core-a");
    Core b = new Core("core-b");
    try (SlowLink link = SlowLink.raw(direct.host(), direct.port())) {
      io.sentinel.store.DbUrl linked =
          new io.sentinel.store.DbUrl(
              "127.0.0.1", link.port(), direct.database(), direct.user(), direct.password());
      CoreRole ra = role(a, sent, linked, silent);
      await().atMost(Duration.ofSeconds(10)).until(ra::holds);
      CoreRole rb = role(b, sent, direct, silent);
      Drive drive = new Drive(ra, a, rb, b);
      await().atMost(Duration.ofSeconds(5)).until(() -> a.sentAt.size() > 100);
      Thread.sleep(500);
      assertThat(rb.state()).isEqualTo(CoreRole.State.STANDBY);
      long stalled = System.nanoTime();
      link.stall();
      await().atMost(Duration.ofSeconds(3)).until(() -> a.fencedAt != 0);
      long fencedMs = (a.fencedAt - stalled) / 1_000_000;
      long lastSentMs = (a.sentAt.get(a.sentAt.size() - 1) - stalled) / 1_000_000;
      // The server still has core-a's session and its lock: nothing could have told it otherwise.
      assertThat(lockSessions()).isEqualTo(1);
      System.out.printf(
          "silent lock link: fenced %d ms after, last command through the fence %d ms after%n",
          fencedMs, lastSentMs);
      assertThat(fencedMs).isLessThan(1000);
      assertThat(lastSentMs).isLessThan(1000);
      // The session lives on, so the other core waits; core-a commands nothing meanwhile.
      int sends = a.sentAt.size();
      Thread.sleep(2000);
      assertThat(rb.state()).isEqualTo(CoreRole.State.STANDBY);
      assertThat(a.sentAt).hasSize(sends);
      assertThat(a.losses.get()).isEqualTo(1);
      // The network back, its connections reset: the server ends the session, core-b takes over.
      link.reset();
      await().atMost(Duration.ofSeconds(15)).until(rb::holds);
      assertThat(rb.epoch()).isEqualTo(2);
      await().atMost(Duration.ofSeconds(5)).until(() -> b.sentAt.size() > 100);
      drive.close();
      assertThat(drive.both.get()).isZero();
      assertThat(runs(sent)).isEqualTo(2);
      assertThat(ra.state()).isNotEqualTo(CoreRole.State.ACTIVE);
    }
  }

  private long lockSessions() {
    return db.count(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database ="
            + " (SELECT oid FROM pg_database WHERE datname = current_database())");
  }

  @Test
  void aCleanRelease_theNextHolderStartsAtOnce_aLostSession_afterTheGrace() throws Exception {
    CoreRole.Settings slow = settings(50, 50, 3000, 1);
    Core a = new Core("core-a");
    Core b = new Core("core-b");
    CoreRole ra = new CoreRole(db.url(), "site-c", a.name, slow, a);
    roles.add(ra);
    ra.start();
    // The site's first holder: nobody before it to wait for.
    await().atMost(Duration.ofSeconds(2)).until(ra::holds);
    CoreRole rb = new CoreRole(db.url(), "site-c", b.name, slow, b);
    roles.add(rb);
    rb.start();
    Thread.sleep(300);
    assertThat(rb.state()).isEqualTo(CoreRole.State.STANDBY);
    ra.close(); // a clean stop: the core stopped first, then the lock let go
    await().atMost(Duration.ofSeconds(2)).until(rb::holds);
    assertThat(rb.epoch()).isEqualTo(2);
    // A terminated session says nothing: the next holder waits the grace out.
    Core c = new Core("core-c");
    CoreRole rc = new CoreRole(db.url(), "site-c", c.name, slow, c);
    roles.add(rc);
    rc.start();
    Thread.sleep(300);
    long terminated = System.nanoTime();
    assertThat(db.terminateLockSessions()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(2)).until(() -> rc.epoch() == 3);
    assertThat(rc.holds()).as("holding before the grace is out").isFalse();
    await().atMost(Duration.ofSeconds(10)).until(rc::holds);
    assertThat((System.nanoTime() - terminated) / 1_000_000).isGreaterThanOrEqualTo(3000);
  }

  @Test
  void lock_heldByOneSession_refusedToAnother_releasedWithItsSession() throws Exception {
    try (CoreLock first =
        CoreLock.tryTake(db.url(), "site-y", "one", Duration.ofSeconds(1)).orElseThrow()) {
      assertThat(first.held()).isTrue();
      assertThat(CoreLock.tryTake(db.url(), "site-y", "two", Duration.ofSeconds(1))).isEmpty();
      // Another site's lock is another key.
      try (CoreLock other =
          CoreLock.tryTake(db.url(), "site-z", "two", Duration.ofSeconds(1)).orElseThrow()) {
        assertThat(other.epoch()).isEqualTo(1);
      }
      assertThat(first.epoch()).isEqualTo(1);
    }
    // The server ends the closed session (and frees its lock) a moment after the client closed it.
    CoreLock[] again = {null};
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                (again[0] =
                        CoreLock.tryTake(db.url(), "site-y", "two", Duration.ofSeconds(1))
                            .orElse(null))
                    != null);
    try (CoreLock taken = again[0]) {
      assertThat(taken.epoch()).isEqualTo(2);
    }
  }
}
