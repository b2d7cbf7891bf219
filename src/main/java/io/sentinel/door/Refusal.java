package io.sentinel.door;

/**
 * What the door refused and why: the flaw, where (a field, a JSON path, {@code line N}; "" for the
 * whole input) and a sentence a person can act on. Thrown by the parsers' door adapters, whose
 * callers turn it into their own rejection (an MQTT rejection, a 400, a revision problem).
 */
public final class Refusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Flaw flaw;
  private final String where;

  public Refusal(Flaw flaw, String where, String message) {
    super(message, null, false, false);
    this.flaw = flaw;
    this.where = where.length() > 120 ? where.substring(0, 120) + "…" : where;
  }

  public Flaw flaw() {
    return flaw;
  }

  /** The field, path or line at fault; "" for the input as a whole. */
  public String where() {
    return where;
  }

  /** The message with where it happened in front, e.g. {@code value: not finite (1e400)}. */
  public String describe() {
    return where.isEmpty() ? getMessage() : where + ": " + getMessage();
  }
}
