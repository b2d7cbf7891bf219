package io.sentinel.cli;

import picocli.CommandLine.Command;

@Command(
    name = "sentinel",
    mixinStandardHelpOptions = true,
    version = "sentinel 0.1.0",
    description = "An edge rules gateway for building and industrial automation.",
    subcommands = {
      RunCommand.class,
      ValidateCommand.class,
      TestCommand.class,
      ReplayCommand.class,
      AuditCommand.class,
      PushCommand.class,
      KeygenCommand.class,
      SignCommand.class
    })
public final class SentinelCommand {}
