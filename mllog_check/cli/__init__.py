"""The command line: a thin click layer over the library.

Commands are registered by name and imported only when run, so that
``mllog-check check FILE`` (the pre-commit hook) does not pay for pandas,
matplotlib or the other commands' imports.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

# name -> "module:function"; each command lives in its own module beside this one.
COMMANDS: dict[str, str] = {
    "check": "mllog_check.cli.check:check",
    "parse": "mllog_check.cli.parse:parse",
    "package": "mllog_check.cli.package:package",
    "audit": "mllog_check.cli.audit:audit",
    "cost": "mllog_check.cli.cost:cost",
    "score": "mllog_check.cli.score:score",
    "report": "mllog_check.cli.report:report",
}

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mllog-check")
def cli() -> None:
    """Parse, check, score and cost-normalize MLPerf Training logs."""


def main(argv: list[str] | None = None) -> Any:
    """Console entry point; usage errors exit 2 (click's convention and ours)."""
    try:
        return cli.main(args=argv, prog_name="mllog-check", standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)


RULESET_HELP = (
    "Round, in any spelling (5.1.0, 5.1, v5.1, training-5.1.0), or 'auto' (default): "
    "[tool.mllog-check] ruleset in the nearest pyproject.toml, else a round folder in the "
    "path (v5.1/, training_results_v5.1/), else the logs' content (the newest round it "
    "allows, said so). Explicit beats config beats folder beats content."
)


def round_setting(command: str, flag: str | None) -> Any:
    """The project setting that applies (only when the flag says auto); a bad one exits 2."""
    from ..rounds import RoundError, find_setting, is_auto

    if not is_auto(flag):
        return None
    try:
        setting = find_setting()
        if setting is not None:
            from ..rounds import from_setting

            from_setting(setting)  # an unknown round in the file is a usage error now
        return setting
    except RoundError as err:
        click.echo(f"mllog-check {command}: {err}", err=True)
        sys.exit(EXIT_USAGE)


def check_round_name(command: str, flag: str | None) -> None:
    """Exit 2 for a --ruleset that names no known round (auto and rule-file paths pass)."""
    from ..rounds import RoundError, is_auto, parse_round

    if is_auto(flag) or flag is None or flag.endswith(".yaml"):
        return
    try:
        parse_round(flag)
    except RoundError as err:
        click.echo(f"mllog-check {command}: {err}", err=True)
        sys.exit(EXIT_USAGE)
