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
  private static final CoreRole.Settings FAST =
      new CoreRole.Settings(
          Duration.ofMillis(50),
          Duration.ofMillis(50),
          Duration.ofMillis(300),
          Duration.ofSeconds(1));

  private final TestDatabase db = TestDatabase.create();
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
    Driver fenced;

    Core(String name) {
      this.name = name;
    }

    @Override
    public void activate(long epoch) {
      activations.incrementAndGet();
    }

    @Override
    public void lost(String why) {
      lostAt = System.nanoTime();
      losses.incrementAndGet();
    }
  }

  private CoreRole role(Core core, List<String> sent) {
    CoreRole r = new CoreRole(db.url(), "site-x", core.name, FAST, core);
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
    AtomicInteger both = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    // Both cores try to command every millisecond; the fence lets one through, or none.
    Thread drive =
        new Thread(
            () -> {
              while (sampling.get()) {
                boolean ha = ra.holds();
                boolean hb = rb.holds();
                if (ha && hb) {
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
    drive.start();
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
    sampling.set(false);
    drive.join();
    assertThat(both.get()).isZero();
    assertThat(sent).contains("core-a", "core-b").hasSizeGreaterThan(100);
    // While one core held the lock the other's sends never got through: the runs alternate.
    int runs = 1;
    for (int i = 1; i < sent.size(); i++) {
      if (!sent.get(i).equals(sent.get(i - 1))) {
        runs++;
      }
    }
    assertThat(runs).isLessThanOrEqualTo(4);
    assertThat(db.longs("SELECT epoch FROM core_epoch WHERE site = 'site-x'")).containsExactly(4L);
  }

  @Test
  void aCleanRelease_theNextHolderStartsAtOnce_aLostSession_afterTheGrace() throws Exception {
    CoreRole.Settings slow =
        new CoreRole.Settings(
            Duration.ofMillis(50),
            Duration.ofMillis(50),
            Duration.ofSeconds(3),
            Duration.ofSeconds(1));
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
