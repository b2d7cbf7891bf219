package io.sentinel.command;

/**
 * Whatever puts a command into the world: an MQTT topic, a GPIO pin. A driver never blocks the
 * engine's thread; it reports each command's outcome back through {@link CommandPlane#delivered} or
 * {@link CommandPlane#failed}, and a change of readiness through {@link
 * CommandPlane#readinessChanged}.
 */
public interface Driver {
  /** For messages: {@code mqtt}, {@code gpio}. */
  String name();

  /** Whether a command handed over now can reach the device. */
  boolean ready();

  /** Hands a command over. Called only while {@link #ready()}; must return at once. */
  void send(Command command);
}
