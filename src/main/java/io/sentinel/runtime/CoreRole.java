package io.sentinel.runtime;

import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.store.CoreLock;
import io.sentinel.store.DbUrl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Whether this gateway is its site's active core or its standby (docs/standby.md). On a thread of
 * its own it contends for the {@link CoreLock}; once it has it (and has waited out {@code
 * takeoverGrace}, the time a previous holder that lost its session needs to see so, unless it
 * released the lock after a clean stop), the core is {@code activate}d. From then on a second
 * thread asks the server every {@code checkEvery} whether the lock is still held, and each answer
 * "held" keeps the tenure's {@link CoreLease} open for three periods from when it was asked; every
 * output driver is fenced by that lease, read at each send. When the lease closes, because a check
 * said the lock is gone or because no check confirmed it in time (the checker starved, or its query
 * waits on a silent network), a third thread that does nothing else sees it within a quarter
 * period: {@code fenced} is told at once (outputs to their safe states), the lock's connection is
 * dropped, and on the role's thread {@code lost} stops the core and contention starts again.
 */
final class CoreRole implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gateway");

  /** The role's settings: sentinel.standby.* (docs/standby.md). */
  record Settings(
      Duration pollEvery, Duration checkEvery, Duration takeoverGrace, Duration lockTimeout) {}

  /** What the gateway does on a change of role. */
  interface Core {
    /** The lock is held: start the core, its commands' ids carrying {@code epoch}. */
    void activate(long epoch);

    /**
     * The fence has closed (the lock lost, or not confirmed in time): outputs to their safe states
     * now. Called once per lost tenure, on the fence's own thread, before {@link #lost}, while the
     * role's thread may still be starting the core; must not wait.
     */
    default void fenced(String why) {}

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
  private final long leaseNanos;
  private final ScheduledExecutorService thread;
  private final ScheduledExecutorService checker;
  private final ScheduledExecutorService fenceWatch;
  private CoreLock lock;
  private volatile State state = State.STANDBY;
  private volatile CoreLease lease;
  private final List<ScheduledFuture<?>> watching = new ArrayList<>();
  private volatile long epoch;
  private boolean warnedUnreachable;

  CoreRole(DbUrl db, String site, String holder, Settings settings, Core core) {
    CoreLease.refusal(settings.checkEvery(), settings.takeoverGrace())
        .ifPresent(
            why -> {
              throw new IllegalArgumentException(why);
            });
    this.db = db;
    this.site = site;
    this.holder = holder;
    this.settings = settings;
    this.core = core;
    this.leaseNanos = CoreLease.lengthFor(settings.checkEvery()).toNanos();
    this.thread = daemon("sentinel-core-role");
    this.checker = daemon("sentinel-core-lock-check");
    this.fenceWatch = daemon("sentinel-core-fence");
  }

  private static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, name);
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

  /**
   * Whether outputs may be commanded now: the lock held, the takeover grace waited out, and the
   * lock confirmed within the lease (docs/standby.md).
   */
  boolean holds() {
    CoreLease l = lease;
    return l != null && l.open(System.nanoTime());
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
        return holds() && inner.ready();
      }

      @Override
      public void send(Command command) {
        if (holds()) {
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
    long asked = System.nanoTime();
    if (!lock.held()) {
      release("the lock's session ended during the takeover grace", settings.pollEvery());
      return;
    }
    CoreLease tenure = new CoreLease(asked, leaseNanos);
    lease = tenure;
    state = State.ACTIVE;
    watch(tenure, lock);
    try {
      core.activate(epoch);
    } catch (RuntimeException e) {
      LOG.errorf("SEN-STB-006 the core did not start at epoch %d: %s", epoch, e.getMessage());
      tenure.end();
      stopWatching();
      lease = null;
      core.lost("its start failed");
      release("the core did not start", settings.takeoverGrace());
    }
  }

  /**
   * From the takeover on, while the core starts and runs: the checks on a thread of their own (one
   * may wait for an answer), and a look at the lease every quarter period on another.
   */
  private void watch(CoreLease tenure, CoreLock held) {
    long every = settings.checkEvery().toMillis();
    synchronized (watching) {
      watching.add(
          checker.scheduleWithFixedDelay(
              () -> check(tenure, held), every, every, TimeUnit.MILLISECONDS));
      watching.add(
          fenceWatch.scheduleAtFixedRate(
              () -> look(tenure, held), 0, Math.max(1, every / 4), TimeUnit.MILLISECONDS));
    }
  }

  private void check(CoreLease tenure, CoreLock held) {
    if (!tenure.open(System.nanoTime())) {
      return;
    }
    long asked = System.nanoTime();
    if (held.held()) {
      tenure.confirmed(asked, System.nanoTime());
    } else {
      tenure.refuted();
    }
    look(tenure, held);
  }

  /** Acts on a closed lease, once: whoever sees it first (the fence's watch, or the checker). */
  private void look(CoreLease tenure, CoreLock held) {
    long now = System.nanoTime();
    if (!tenure.takeLoss(now)) {
      return;
    }
    boolean refuted = tenure.state(now) == CoreLease.State.REFUTED;
    String why = refuted ? "the core lock was lost" : "the core lock was not confirmed in time";
    try {
      core.fenced(why); // first: the log below may wait on its output
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-STB-011 putting the outputs in their safe states at once failed");
    }
    // A check waiting on a silent network returns now; the lock goes with the session, once the
    // server hears of it.
    held.abort();
    if (refuted) {
      LOG.errorf(
          "SEN-STB-003 core lock of site %s lost (its database session ended) at epoch %d: outputs"
              + " to their safe states, the core stops and contends again",
          site, epoch);
    } else {
      LOG.errorf(
          "SEN-STB-009 core lock of site %s not confirmed for %d ms at epoch %d: the fence closed by"
              + " itself, outputs to their safe states, the core stops and contends again",
          site, tenure.sinceConfirmed(now) / 1_000_000, epoch);
    }
    try {
      thread.execute(() -> lose(tenure, why));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile: the gateway's stop stops the core
    }
  }

  private void lose(CoreLease tenure, String why) {
    if (state == State.CLOSED || lease != tenure) {
      return;
    }
    stopWatching();
    lease = null;
    try {
      core.lost(why);
    } catch (RuntimeException e) {
      LOG.errorf(e, "SEN-STB-008 stopping the core after the lost lock failed");
    }
    release("lost", settings.takeoverGrace());
  }

  private void stopWatching() {
    synchronized (watching) {
      watching.forEach(f -> f.cancel(false));
      watching.clear();
    }
  }

  /**
   * Lets the lock go and contends again after {@code backoff}: after a loss, longer than a
   * standby's poll, so that a standby whose database connection is sound takes over first.
   */
  private void release(String why, Duration backoff) {
    lease = null;
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
    CoreLease tenure = lease;
    if (tenure != null) {
      tenure.end();
    }
    lease = null;
    stopWatching();
    for (ScheduledExecutorService s : List.of(fenceWatch, checker, thread)) {
      s.shutdownNow();
      try {
        s.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (lock != null) {
      lock.releaseCleanly();
      lock = null;
    }
  }
}
