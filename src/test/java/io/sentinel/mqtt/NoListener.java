package io.sentinel.mqtt;

/** A connection listener for tests that do not watch the session's state. */
final class NoListener implements MqttConnection.Listener {
  static final NoListener INSTANCE = new NoListener();

  private NoListener() {}

  @Override
  public void connected() {}

  @Override
  public void disconnected(String cause) {}
}
