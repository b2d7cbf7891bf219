package io.sentinel.site.yaml;

import io.sentinel.door.Door;
import io.sentinel.door.Flaw;
import io.sentinel.door.Refusal;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

/**
 * The YAML parser at the door: SnakeYAML-engine's own (which is iterative and bounded by the code
 * point limit) with what its composer lacks, checked on each event before the composer, which
 * recurses, sees it: nesting at most {@link Door#MAX_DEPTH} (20,000 levels of {@code [[[…} or
 * {@code - - - …} would overflow the composer's stack) and no control character in a scalar ({@code
 * "\0"} and {@code "\e"} are escapes of double-quoted YAML; a raw one is refused by the reader
 * already). A breach is a {@link Refusal} naming the line.
 */
final class DoorParser implements Parser {
  private final Parser inner;
  private int depth;

  DoorParser(LoadSettings settings, String text) {
    this.inner = new ParserImpl(settings, new StreamReader(settings, text));
  }

  @Override
  public boolean checkEvent(Event.ID choice) {
    return inner.checkEvent(choice);
  }

  @Override
  public Event peekEvent() {
    return inner.peekEvent();
  }

  @Override
  public boolean hasNext() {
    return inner.hasNext();
  }

  @Override
  public Event next() {
    Event e = inner.next();
    switch (e.getEventId()) {
      case MappingStart, SequenceStart -> {
        if (++depth > Door.MAX_DEPTH) {
          throw new Refusal(
              Flaw.TOO_DEEP, line(e), "nested deeper than " + Door.MAX_DEPTH + " levels");
        }
      }
      case MappingEnd, SequenceEnd -> depth--;
      case Scalar -> {
        String v = ((ScalarEvent) e).getValue();
        if (v.length() > Door.MAX_STRING) {
          throw new Refusal(
              Flaw.OVERSIZE, line(e), "a value longer than " + Door.MAX_STRING + " characters");
        }
        Door.text(v, line(e));
      }
      default -> {}
    }
    return e;
  }

  private static String line(Event e) {
    return e.getStartMark().map(m -> "line " + (m.getLine() + 1)).orElse("");
  }
}
