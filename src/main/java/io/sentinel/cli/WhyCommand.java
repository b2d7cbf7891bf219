package io.sentinel.cli;

import io.sentinel.passlog.Explanation;
import io.sentinel.store.Databases;
import io.sentinel.wire.ExplanationJson;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "why",
    description =
        "Says why an output was in its state at an instant, from the log: the decided value, the"
            + " winning rule, its inputs' values and qualities, the deciding key, every contender,"
            + " the last command and its delivery state (the same explanation as GET"
            + " /api/v1/points/<id>/why). Exit 0: explained; 1: no decision on the point logged"
            + " by then; 2: bad input or no log.")
public final class WhyCommand implements Callable<Integer> {
  @Parameters(paramLabel = "POINT", description = "the output's point id")
  String point;

  @Option(
      names = "--at",
      paramLabel = "T",
      description = "the instant to explain (ISO-8601; default: now)")
  Optional<String> at;

  @Option(names = "--json", description = "the explanation as the HTTP API's JSON body")
  boolean json;

  @Mixin DatabaseOption database;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Instant t;
    try {
      t = at.map(a -> OffsetDateTime.parse(a.trim()).toInstant()).orElseGet(Instant::now);
    } catch (DateTimeParseException e) {
      err.println(
          "sentinel why: --at takes an ISO-8601 instant (2026-11-02T05:00:00Z): "
              + e.getParsedString());
      return 2;
    }
    Explanation e;
    try (Databases dbs = database.open()) {
      e = dbs.history().why(point, t);
    }
    if (json) {
      out.println(ExplanationJson.of(e).encodePrettily());
    } else {
      e.lines().forEach(out::println);
    }
    if (e.decidedAt().isEmpty()) {
      err.println("sentinel why: no decision on " + point + " in the log up to " + t);
      return 1;
    }
    return 0;
  }
}
