package io.sentinel.runtime;

import java.time.Duration;

/**
 * The fence of one tenure of the core lock, as a decision over instants of one monotonic clock
 * (nanoseconds: {@code System.nanoTime()} in the gateway, plain numbers in a test). Commands may
 * leave only while the lock has been confirmed recently: a confirmation is a check that the server
 * answered "held", dated when the check was <em>sent</em> (the server held the lock for this
 * session at some moment after that), and it keeps the fence open for {@link #length} from that
 * date. So whatever the database client says or fails to say, and however late the checker runs, no
 * command passes later than {@code length} after the last moment the lock was known held
 * (docs/standby.md, "The fence closes by itself").
 *
 * <p>Once closed, by its time running out ({@link State#LAPSED}) or by a check saying the lock is
 * gone ({@link State#REFUTED}), it stays closed: a confirmation that comes in late does not reopen
 * it, since the outputs are being put in their safe states and the core stopped; a new tenure is a
 * new lease. Closing is a matter of time alone, not of who looks: every method first closes a lease
 * whose time is up.
 */
final class CoreLease {
  /** How many check periods one confirmation keeps the fence open. */
  static final int CHECKS = 3;

  enum State {
    /** Confirmed within its length: commands may leave. */
    OPEN,
    /** Not confirmed within its length: closed by itself. */
    LAPSED,
    /** A check said the lock is not held (the session ended, or the check failed). */
    REFUTED,
    /** Ended by the role itself (a clean stop, a failed start): no loss to act on. */
    ENDED
  }

  private final long length;
  private long openUntil;
  private long confirmedAt;
  private State state = State.OPEN;
  private boolean lossTaken;

  /**
   * A tenure whose lock was confirmed by a check sent at {@code confirmedAt}.
   *
   * @param length how long one confirmation keeps the fence open, in the clock's units
   */
  CoreLease(long confirmedAt, long length) {
    if (length <= 0) {
      throw new IllegalArgumentException("a lease's length must be positive: " + length);
    }
    this.length = length;
    this.confirmedAt = confirmedAt;
    this.openUntil = confirmedAt + length;
  }

  /** The lease's length for a check every {@code checkEvery}: {@value #CHECKS} periods. */
  static Duration lengthFor(Duration checkEvery) {
    return checkEvery.multipliedBy(CHECKS);
  }

  /**
   * Why these settings cannot fence, if they cannot: a deposed core's fence must be closed before
   * the next holder may command, that is, the lease must be shorter than the takeover grace.
   */
  static java.util.Optional<String> refusal(Duration checkEvery, Duration takeoverGrace) {
    Duration lease = lengthFor(checkEvery);
    if (checkEvery.isNegative() || checkEvery.isZero() || lease.compareTo(takeoverGrace) >= 0) {
      return java.util.Optional.of(
          "SEN-STB-010 sentinel.standby.check-every ("
              + checkEvery.toMillis()
              + " ms) keeps the fence open "
              + CHECKS
              + " times that after each check, which must be positive and shorter than"
              + " sentinel.standby.takeover-grace ("
              + takeoverGrace.toMillis()
              + " ms): a deposed core could still command when the next one starts");
    }
    return java.util.Optional.empty();
  }

  /** Where the lease stands at {@code now}; closes it if its time is up. */
  synchronized State state(long now) {
    if (state == State.OPEN && now - openUntil >= 0) {
      state = State.LAPSED;
    }
    return state;
  }

  /** Whether a command may leave at {@code now}. */
  boolean open(long now) {
    return state(now) == State.OPEN;
  }

  /**
   * A check sent at {@code sentAt} was answered "held" at {@code answeredAt}: the fence stays open
   * until {@code sentAt} plus the length, unless it had closed by {@code answeredAt}.
   */
  synchronized void confirmed(long sentAt, long answeredAt) {
    if (state(answeredAt) == State.OPEN && sentAt - confirmedAt > 0) {
      confirmedAt = sentAt;
      openUntil = sentAt + length;
    }
  }

  /** A check said the lock is not held, or could not ask: closed at once. */
  synchronized void refuted() {
    if (state == State.OPEN) {
      state = State.REFUTED;
    }
  }

  /** The role ends the tenure itself: closed, and no loss to act on. */
  synchronized void end() {
    if (state == State.OPEN) {
      state = State.ENDED;
    }
    lossTaken = true;
  }

  /**
   * True exactly once, at the first call that finds the lease lapsed or refuted: whoever gets it
   * acts on the loss (outputs safe, the core stopped), so that it is acted on once however many
   * threads look.
   */
  synchronized boolean takeLoss(long now) {
    State s = state(now);
    if (s == State.OPEN || lossTaken) {
      return false;
    }
    lossTaken = true;
    return true;
  }

  /** How long before {@code now} the last confirmation was sent. */
  synchronized long sinceConfirmed(long now) {
    return now - confirmedAt;
  }
}
