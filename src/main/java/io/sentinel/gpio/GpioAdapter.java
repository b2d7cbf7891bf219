package io.sentinel.gpio;

import com.pi4j.context.Context;
import io.sentinel.command.Command;
import io.sentinel.command.Driver;
import io.sentinel.point.PointDriver;
import io.sentinel.point.PointSource;
import io.sentinel.point.PointSpec;
import io.sentinel.point.Registry;
import io.sentinel.point.Sample;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The Raspberry Pi's pins through Pi4J (docs/gpio.md): the registry's {@code source.gpio} inputs
 * become samples, its {@code driver.gpio} outputs are this driver's. Every pin is touched on one
 * thread of its own ({@code sentinel-gpio}), so the engine's thread never waits for a pin, and the
 * adapter's timers keep running whatever the engine does.
 *
 * <p>What the adapter decides, and only as the last line of defence: an output goes to its safe
 * state (its {@code release_value}, else off) when the platform opens, at {@link #close}, and when
 * the engine is lost ({@link #engineLost}); and a point with {@code pulse_max} is de-energised by
 * the adapter's own timer at most {@code pulse_max} after it was energised, whatever it is asked.
 */
public final class GpioAdapter implements Driver, AutoCloseable {
  private static final Logger LOG = Logger.getLogger("io.sentinel.gpio");

  /** Where the adapter reports; called on the adapter's thread, must not wait. */
  public interface Listener {
    void delivered(String commandId);

    void failed(String commandId, Throwable cause);

    /** The platform came up, or the adapter stopped taking commands. */
    void readinessChanged();

    /** An input's new level (debounced), or its level when the inputs start. */
    void sample(Sample sample, String source);

    /** The adapter cut an output at its {@code pulse_max}, whatever it had been asked. */
    void pulseCut(PulseCut cut);
  }

  private final GpioPlatform platform;
  private final Supplier<Context> contexts;
  private final Listener listener;
  private final InstantSource clock;
  private final Duration retryEvery;
  private final ScheduledExecutorService thread;
  private final Map<String, GpioOutput> outputs = new LinkedHashMap<>();
  private final List<GpioInput> inputs = new ArrayList<>();
  private Context context;
  private boolean inputsWanted;
  private boolean inputsStarted;
  private volatile boolean ready;
  private volatile boolean lost;
  private volatile boolean closed;
  private ScheduledFuture<?> retry;
  private ScheduledFuture<?> watchdog;

  /**
   * @param registry the site's points; those with a gpio source or driver are the adapter's
   * @param retryEvery how often a platform that did not open is tried again
   */
  public GpioAdapter(
      Registry registry,
      GpioPlatform platform,
      Listener listener,
      InstantSource clock,
      Duration retryEvery) {
    this(registry, platform, platform::newContext, listener, clock, retryEvery);
  }

  /** As above, with the Pi4J context made by {@code contexts} (tests: a platform that fails). */
  GpioAdapter(
      Registry registry,
      GpioPlatform platform,
      Supplier<Context> contexts,
      Listener listener,
      InstantSource clock,
      Duration retryEvery) {
    this.platform = platform;
    this.contexts = contexts;
    this.listener = listener;
    this.clock = clock;
    this.retryEvery = retryEvery;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sentinel-gpio");
              t.setDaemon(true);
              return t;
            });
    for (PointSpec spec : registry.points().values()) {
      if (spec.driver().orElse(null) instanceof PointDriver.Gpio g) {
        outputs.put(spec.id(), new GpioOutput(spec, g, thread, clock, listener::pulseCut));
      }
      if (spec.source().orElse(null) instanceof PointSource.Gpio g) {
        inputs.add(new GpioInput(spec, g));
      }
    }
  }

  /** Whether a site has any GPIO point (no point, no adapter). */
  public static boolean anyGpio(Registry registry) {
    return registry.points().values().stream().anyMatch(GpioAdapter::drives)
        || registry.points().values().stream()
            .anyMatch(p -> p.source().orElse(null) instanceof PointSource.Gpio);
  }

  /** Whether this point's commands are the adapter's. */
  public static boolean drives(PointSpec spec) {
    return spec.driver().orElse(null) instanceof PointDriver.Gpio;
  }

  public GpioPlatform platform() {
    return platform;
  }

  /**
   * Opens the platform and puts every output in its safe state, before returning (waiting at most
   * {@code within}). A platform that does not open is tried again every {@code retryEvery} in the
   * background; the adapter is not ready until it opens.
   *
   * @return whether the platform is up
   */
  public boolean open(Duration within) {
    Future<?> attempt = thread.submit(this::tryOpen);
    try {
      attempt.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.warnf("SEN-GPIO-004 the %s platform did not open within %s", platform.wireName(), within);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      LOG.errorf(e.getCause(), "SEN-GPIO-012 opening the %s platform failed", platform.wireName());
    }
    return ready;
  }

  /**
   * Starts reading the inputs (now if the platform is up, else once it opens): each reports its
   * level at once, then every debounced change. Runs after whatever was handed to {@link #send}
   * before it, so a command sent at start reaches its pin before any input is read.
   */
  public void startInputs() {
    thread.execute(
        () -> {
          inputsWanted = true;
          if (ready) {
            provisionInputs();
          }
        });
  }

  /**
   * Watches the engine: {@code ping} is asked every {@code timeout / 4}; when one has not answered
   * within {@code timeout}, the engine is lost ({@link #engineLost}) and {@code onLost} is told.
   */
  public void watchEngine(Supplier<CompletableFuture<?>> ping, Duration timeout, Runnable onLost) {
    long every = Math.max(1, timeout.toMillis() / 4);
    Instant[] pending = {null};
    CompletableFuture<?>[] last = {CompletableFuture.completedFuture(null)};
    watchdog =
        thread.scheduleWithFixedDelay(
            () -> {
              Instant now = clock.instant();
              if (last[0].isDone()) {
                pending[0] = now;
                last[0] = ping.get();
              } else if (!now.isBefore(pending[0].plus(timeout))) {
                loseEngine("the engine has not answered for " + timeout.toMillis() + " ms");
                onLost.run();
              }
            },
            every,
            every,
            TimeUnit.MILLISECONDS);
  }

  /**
   * The gateway lost its engine (a fatal error): every output goes to its safe state and the
   * adapter takes no command any more, until the gateway is restarted.
   */
  public void engineLost(String why) {
    thread.execute(() -> loseEngine(why));
  }

  @Override
  public String name() {
    return "gpio";
  }

  @Override
  public boolean ready() {
    return ready;
  }

  @Override
  public void send(Command command) {
    try {
      thread.execute(() -> apply(command));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      listener.failed(command.commandId(), e); // closed: the plane keeps it as undeliverable
    }
  }

  /**
   * Every output to its safe state, then the platform shut down (Pi4J leaves each output in the
   * same safe state). Waits at most 5 s for the adapter's thread.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Future<?> done =
        thread.submit(
            () -> {
              ready = false;
              cancel(retry);
              cancel(watchdog);
              if (context != null) {
                allSafe("the gateway stops");
                context.shutdown();
                context = null;
                LOG.infof(
                    "SEN-GPIO-009 every GPIO output in its safe state, the %s platform shut down",
                    platform.wireName());
              }
            });
    try {
      done.get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.errorf("SEN-GPIO-005 the GPIO platform did not shut down cleanly: %s", e);
    }
    thread.shutdownNow();
  }

  /** The Pi4J context, for tests (the mock pins); null while the platform is not open. */
  public Context context() {
    return context;
  }

  /** The Pi4J id of a pin's IO: {@code gpio-17}. */
  public static String ioId(int pin) {
    return "gpio-" + pin;
  }

  // --- on the adapter's thread from here on ---

  private void tryOpen() {
    if (ready || closed || lost) {
      return;
    }
    try {
      Context c = contexts.get();
      try {
        for (GpioOutput o : outputs.values()) {
          o.open(c);
        }
      } catch (RuntimeException e) {
        c.shutdown();
        throw e;
      }
      context = c;
    } catch (RuntimeException e) {
      LOG.warnf(
          "SEN-GPIO-003 the %s GPIO platform is not up (%s); GPIO commands wait, tried again in %s",
          platform.wireName(), e.getMessage(), retryEvery);
      retry = thread.schedule(this::tryOpen, retryEvery.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    ready = true;
    LOG.infof(
        "SEN-GPIO-002 GPIO on %s: %d outputs in their safe state (%s)",
        platform.wireName(),
        outputs.size(),
        outputs.values().stream()
            .map(o -> o.spec.id() + "=pin " + o.gpio.pin() + (o.safe ? " on" : " off"))
            .toList());
    listener.readinessChanged();
    if (inputsWanted) {
      provisionInputs();
    }
  }

  private void provisionInputs() {
    if (inputsStarted) {
      return;
    }
    inputsStarted = true;
    for (GpioInput in : inputs) {
      try {
        in.open(context, thread, () -> edge(in));
        report(in);
      } catch (RuntimeException e) {
        LOG.errorf(
            "SEN-GPIO-006 input %s (pin %d) not read: %s",
            in.spec.id(), in.gpio.pin(), e.getMessage());
      }
    }
  }

  /** A change on an input: reported once the new level has held for the debounce time. */
  private void edge(GpioInput in) {
    if (closed || lost) {
      return;
    }
    in.edge(thread, () -> report(in));
  }

  private void report(GpioInput in) {
    if (closed || lost) {
      return;
    }
    Sample sample = in.read(clock.instant());
    if (sample != null) {
      listener.sample(sample, in.source());
    }
  }

  private void apply(Command c) {
    GpioOutput o = outputs.get(c.pointId());
    if (o == null || !ready) {
      listener.failed(
          c.commandId(),
          new IllegalStateException(
              o == null ? "no gpio output " + c.pointId() : "the GPIO platform is not up"));
      return;
    }
    Boolean on = o.levelFor(c.value());
    if (on == null) {
      listener.failed(
          c.commandId(), new IllegalArgumentException("a gpio output is bool, not " + c.value()));
      return;
    }
    try {
      o.drive(on, c);
      listener.delivered(c.commandId());
    } catch (RuntimeException e) {
      LOG.warnf("SEN-GPIO-007 %s (pin %d) not driven: %s", o.spec.id(), o.gpio.pin(), e);
      listener.failed(c.commandId(), e);
    }
  }

  private void loseEngine(String why) {
    if (lost || closed) {
      return;
    }
    lost = true;
    boolean wasReady = ready;
    ready = false;
    cancel(watchdog);
    cancel(retry);
    LOG.errorf("SEN-GPIO-010 %s: every GPIO output to its safe state, no command taken", why);
    if (context != null) {
      allSafe(why);
    }
    if (wasReady) {
      listener.readinessChanged();
    }
  }

  private void allSafe(String why) {
    for (GpioOutput o : outputs.values()) {
      o.toSafe(why);
    }
  }

  private static void cancel(Future<?> f) {
    GpioOutput.cancel(f);
  }

  /** Whether the adapter gave up on its engine (outputs held safe). */
  public boolean engineWasLost() {
    return lost;
  }
}
