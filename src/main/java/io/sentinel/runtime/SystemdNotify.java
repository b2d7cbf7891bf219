package io.sentinel.runtime;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The service manager's notification protocol (sd_notify(3)): {@code READY=1} once the engine has
 * made its first pass, {@code WATCHDOG=1} from the engine's context while it keeps turning over,
 * {@code STOPPING=1} at a clean stop. Present only when systemd started the gateway with {@code
 * Type=notify} ({@code NOTIFY_SOCKET} set). Java 17 has no Unix datagram sockets, so the datagram
 * goes through libc's {@code socket}/{@code sendto} by JNA, from the gateway's own process (the
 * unit's default {@code NotifyAccess=main} accepts it; docs/deployment.md, docs/dependencies.md).
 */
public final class SystemdNotify {
  private static final Logger LOG = Logger.getLogger(SystemdNotify.class);
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 0x80000;
  private static final int MSG_NOSIGNAL = 0x4000;

  /** The three libc calls the protocol needs. */
  interface LibC extends Library {
    int socket(int domain, int type, int protocol) throws LastErrorException;

    long sendto(int fd, byte[] buf, long len, int flags, byte[] addr, int addrLen)
        throws LastErrorException;

    int close(int fd) throws LastErrorException;
  }

  private final String socketPath;
  private final byte[] address;
  private final Optional<Duration> watchdog;
  private LibC libc;
  private int fd = -1;
  private boolean readySent;
  private boolean failed;

  private SystemdNotify(String socketPath, Optional<Duration> watchdog) {
    this.socketPath = socketPath;
    this.address = sockaddrUn(socketPath);
    this.watchdog = watchdog;
  }

  /**
   * From the environment systemd gives a {@code Type=notify} service: {@code NOTIFY_SOCKET} (a
   * path, or {@code @name} in the abstract namespace), and {@code WATCHDOG_USEC} when the unit has
   * {@code WatchdogSec} (for this process only if {@code WATCHDOG_PID} is unset or {@code pid}).
   */
  public static Optional<SystemdNotify> fromEnvironment(Map<String, String> env, long pid) {
    String socket = env.get("NOTIFY_SOCKET");
    if (socket == null || socket.isBlank()) {
      return Optional.empty();
    }
    Optional<Duration> watchdog = Optional.empty();
    String usec = env.get("WATCHDOG_USEC");
    String forPid = env.get("WATCHDOG_PID");
    if (usec != null && (forPid == null || forPid.equals(Long.toString(pid)))) {
      try {
        long micros = Long.parseLong(usec.trim());
        if (micros > 0) {
          watchdog = Optional.of(Duration.ofNanos(micros * 1_000));
        }
      } catch (NumberFormatException e) {
        LOG.warnf("SEN-SYS-002 WATCHDOG_USEC=%s is no number: no watchdog notifications", usec);
      }
    }
    return Optional.of(new SystemdNotify(socket.trim(), watchdog));
  }

  /**
   * How often to beat: half the watchdog's interval (sd_watchdog_enabled(3)'s advice), empty when
   * the unit has no watchdog.
   */
  public Optional<Duration> beatEvery() {
    return watchdog.map(w -> w.dividedBy(2));
  }

  /** The first call says {@code READY=1} with {@code status}; each later one {@code WATCHDOG=1}. */
  public synchronized void beat(String status) {
    if (!readySent) {
      readySent = send("READY=1\nSTATUS=" + status.replace('\n', ' '));
    } else if (watchdog.isPresent()) {
      send("WATCHDOG=1");
    }
  }

  /** READY at the loop's first beat, then the watchdog's beats from it, saying {@code status}. */
  void beatWith(EngineLoop loop, java.util.function.Supplier<String> status) {
    loop.heartbeat(beatEvery(), () -> beat(status.get()));
  }

  /** A clean stop has begun: systemd waits for the process to exit instead of its watchdog. */
  public synchronized void stopping() {
    send("STOPPING=1\nSTATUS=stopping");
    closeSocket();
  }

  /** Sends one datagram; a failure is said once and notification stops (systemd acts on it). */
  private boolean send(String message) {
    if (failed) {
      return false;
    }
    try {
      if (fd < 0) {
        libc = Native.load("c", LibC.class);
        fd = libc.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      }
      byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
      libc.sendto(fd, bytes, bytes.length, MSG_NOSIGNAL, address, address.length);
      return true;
    } catch (LastErrorException | UnsatisfiedLinkError | NoClassDefFoundError e) {
      failed = true;
      LOG.warnf(
          "SEN-SYS-001 cannot notify the service manager at NOTIFY_SOCKET=%s (%s): it will take the"
              + " gateway for failed to start, or restart it when its watchdog expires",
          socketPath, e.getMessage());
      closeSocket();
      return false;
    }
  }

  private void closeSocket() {
    if (fd >= 0) {
      try {
        libc.close(fd);
      } catch (LastErrorException e) {
        // closing a datagram socket fails only on a bad descriptor: nothing left to release
      }
      fd = -1;
    }
  }

  /**
   * A {@code struct sockaddr_un}: the family in the platform's byte order, then the path; {@code @}
   * at the start names the abstract namespace (a leading NUL, no terminating one).
   */
  static byte[] sockaddrUn(String path) {
    boolean abstractName = path.startsWith("@");
    byte[] name = (abstractName ? "\0" + path.substring(1) : path).getBytes(StandardCharsets.UTF_8);
    if (name.length > 107) {
      throw new IllegalArgumentException("NOTIFY_SOCKET is longer than sun_path: " + path);
    }
    ByteBuffer b =
        ByteBuffer.allocate(2 + name.length + (abstractName ? 0 : 1))
            .order(ByteOrder.nativeOrder());
    b.putShort((short) AF_UNIX).put(name);
    return b.array();
  }
}
