package io.sentinel.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;

/**
 * The top of the command line. Its subcommands are added by {@link #commandLine}, not listed in the
 * annotation: picocli builds the model of every command it is given, and for {@code run} that was a
 * tenth of a second of the gateway's start (docs/deployment.md, "The start, session 10").
 */
@Command(
    name = "sentinel",
    mixinStandardHelpOptions = true,
    version = "sentinel 0.1.0",
    // --help and --version on every subcommand too, with this version.
    scope = ScopeType.INHERIT,
    description = "An edge rules gateway for building and industrial automation.")
public final class SentinelCommand {
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          RunCommand.class,
          ValidateCommand.class,
          TestCommand.class,
          ReplayCommand.class,
          WhyCommand.class,
          AuditCommand.class,
          PushCommand.class,
          PromoteCommand.class,
          KeygenCommand.class,
          SignCommand.class,
          UnpackPostgresCommand.class);

  private SentinelCommand() {}

  /**
   * The command line for {@code args}: with only the subcommand they name when their first word
   * names one, with all of them otherwise (the help, a typo's suggestions, an error's usage).
   */
  static CommandLine commandLine(String... args) {
    String first = args.length > 0 ? args[0] : "";
    boolean named =
        SUBCOMMANDS.stream().anyMatch(c -> c.getAnnotation(Command.class).name().equals(first));
    CommandLine line = new CommandLine(new SentinelCommand());
    for (Class<?> c : SUBCOMMANDS) {
      if (!named || c.getAnnotation(Command.class).name().equals(first)) {
        line.addSubcommand(c);
      }
    }
    // After the subcommands: picocli sets this on those it already has.
    return line.setCaseInsensitiveEnumValuesAllowed(true);
  }
}
