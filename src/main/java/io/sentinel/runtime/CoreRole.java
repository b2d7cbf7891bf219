package io.sentinel.runtime;

import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.store.CoreLock;
import io.sentinel.store.DbUrl;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Whether this gateway is its site's active core or its standby (docs/standby.md). On a thread of
 * its own it contends for the {@link CoreLock}; once it has it (and has waited out {@code
 * takeoverGrace}, the time a previous holder that lost its session needs to see so, unless it
 * released the lock after a clean stop), the core is {@code activate}d; it then asks the server
 * every {@code checkEvery} whether the lock is still held. A lost lock fences every output driver
 * at once, {@code lost} is told (outputs to their safe states, the core stopped), and contention
 * starts again.
 */
final class CoreRole implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** The role's settings: sentinel.standby.* (docs/standby.md). */
  record Settings(
      Duration pollEvery, Duration checkEvery, Duration takeoverGrace, Duration lockTimeout) {}

  /** What the gateway does on a change of role; both are called on the role's own thread. */
  interface Core {
    /** The lock is held: start the core, its commands' ids carrying {@code epoch}. */
    void activate(long epoch);

    /** The lock is gone: outputs to their safe states and the core stopped (the fence is up). */
    void lost(String why);

    /** Each contention attempt while standing by: the service manager's watchdog is fed here. */
    default void standingBy() {}
  }

  enum State {
    STANDBY,
    ACTIVE,
    CLOSED
  }

  private final DbUrl db;
  private final String site;
  private final String holder;
  private final Settings settings;
  private final Core core;
  private final ScheduledExecutorService thread;
  private CoreLock lock;
  private volatile State state = State.STANDBY;
  private volatile boolean holds;
  private volatile long epoch;
  private boolean warnedUnreachable;

  CoreRole(DbUrl db, String site, String holder, Settings settings, Core core) {
    this.db = db;
    this.site = site;
    this.holder = holder;
    this.settings = settings;
    this.core = core;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sentinel-core-role");
              t.setDaemon(true);
              return t;
            });
  }

  void start() {
    LOG.infof(
        "SEN-STB-001 standby configured: contending for the core lock of site %s as %s",
        site, holder);
    thread.execute(this::contend);
  }

  State state() {
    return state;
  }

  /** The epoch of this core's current tenure, 0 before its first. */
  long epoch() {
    return epoch;
  }

  /** Whether outputs may be commanded now: the lock held and the takeover grace waited out. */
  boolean holds() {
    return holds;
  }

  /** A driver that says not ready, and sends nothing, while this core does not hold the lock. */
  Driver fence(Driver inner) {
    return new Driver() {
      @Override
      public String name() {
        return inner.name();
      }

      @Override
      public boolean ready() {
        return holds && inner.ready();
      }

      @Override
      public void send(Command command) {
        if (holds) {
          inner.send(command);
        } else {
          LOG.debugf("command %s not sent: this core holds no lock", command.commandId());
        }
      }
    };
  }

  private void contend() {
    if (state == State.CLOSED) {
      return;
    }
    Optional<CoreLock> taken;
    try {
      taken = CoreLock.tryTake(db, site, holder, settings.lockTimeout());
      warnedUnreachable = false;
    } catch (Exception e) {
      if (!warnedUnreachable) {
        LOG.warnf("SEN-STB-005 cannot contend for the core lock at %s: %s", db, e.getMessage());
        warnedUnreachable = true;
      }
      taken = Optional.empty();
    }
    if (taken.isEmpty()) {
      core.standingBy();
      thread.schedule(this::contend, settings.pollEvery().toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    lock = taken.get();
    epoch = lock.epoch();
    // After a clean stop the previous holder's outputs are safe and its journal fed already.
    long grace = lock.afterCleanRelease() ? 0 : settings.takeoverGrace().toMillis();
    LOG.infof(
        "SEN-STB-002 core lock of site %s taken, epoch %d: active in %d ms", site, epoch, grace);
    thread.schedule(this::takeOver, grace, TimeUnit.MILLISECONDS);
  }

  private void takeOver() {
    if (state == State.CLOSED) {
      return;
    }
    if (!lock.held()) {
      release("the lock's session ended during the takeover grace", settings.pollEvery());
      return;
    }
    holds = true;
    state = State.ACTIVE;
    try {
      core.activate(epoch);
    } catch (RuntimeException e) {
      LOG.errorf("SEN-STB-006 the core did not start at epoch %d: %s", epoch, e.getMessage());
      holds = false;
      core.lost("its start failed");
      release("the core did not start", settings.takeoverGrace());
      return;
    }
    thread.schedule(this::watch, settings.checkEvery().toMillis(), TimeUnit.MILLISECONDS);
  }

  private void watch() {
    if (state == State.CLOSED) {
      return;
    }
    if (lock.held()) {
      thread.schedule(this::watch, settings.checkEvery().toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    holds = false; // first: no command leaves from here on
    LOG.errorf(
        "SEN-STB-003 core lock of site %s lost (its database session ended) at epoch %d: outputs"
            + " to their safe states, the core stops and contends again",
        site, epoch);
    try {
      core.lost("the core lock was lost");
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-STB-008 stopping the core after the lost lock failed");
    }
    release("lost", settings.takeoverGrace());
  }

  /**
   * Lets the lock go and contends again after {@code backoff}: after a loss, longer than a
   * standby's poll, so that a standby whose database connection is sound takes over first.
   */
  private void release(String why, Duration backoff) {
    holds = false;
    lock.close();
    lock = null;
    if (state != State.CLOSED) {
      state = State.STANDBY;
      LOG.infof("SEN-STB-004 standing by for site %s (%s)", site, why);
      thread.schedule(this::contend, backoff.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Stops contending and releases the lock; the caller has stopped the core first, so that a
   * standby takes over only from outputs already in their safe states.
   */
  @Override
  public void close() {
    state = State.CLOSED;
    holds = false;
    thread.shutdownNow();
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (lock != null) {
      lock.releaseCleanly();
      lock = null;
    }
  }
}
