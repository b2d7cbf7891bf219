package io.sentinel.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;

@Command(
    name = "sentinel",
    mixinStandardHelpOptions = true,
    version = "sentinel 0.1.0",
    // --help and --version on every subcommand too, with this version.
    scope = ScopeType.INHERIT,
    description = "An edge rules gateway for building and industrial automation.",
    subcommands = {
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
      UnpackPostgresCommand.class
    })
public final class SentinelCommand {}
