"""``mllog-check check``: compliance of result logs with a round's rules.

Kept light for the pre-commit hook: no pandas, scipy, matplotlib or rich here.
"""

from __future__ import annotations

import sys

import click

from ..reporters import CHECK, names
from . import EXIT_USAGE, RULESET_HELP, check_round_name, round_setting


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--ruleset",
    default="auto",
    show_default=True,
    help=RULESET_HELP + " A rule file path (.yaml) is used as given. 0.5.0: parse checks only.",
)
@click.option(
    "--include",
    "include",
    multiple=True,
    metavar="GLOB",
    help="Also take files with this name pattern inside directories (repeatable), "
    "e.g. --include '*.log'. By default only result_*.txt and result_*.txt.gz.",
)
@click.option("-v", "--verbose", is_flag=True, help="Say which ruleset each log got, and why.")
@click.option("--strict", is_flag=True, help="Checks beyond the official ones (MLC1xx) fail too.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(names(CHECK)),
    default="text",
    show_default=True,
    help="Output format (stdout).",
)
def check(
    paths: tuple[str, ...],
    ruleset: str,
    strict: bool,
    fmt: str,
    verbose: bool,
    include: tuple[str, ...],
) -> None:
    """Check MLPerf Training result logs (files, directories, '-') for compliance.

    Directories are walked in sorted order for result_*.txt files (gzip too; --include
    adds other names).
    Exit 0 when every log is compliant, 1 when some is not, 2 on a usage or input error
    (including a round whose rules this build does not have: never a pass).
    """
    from .. import reporters
    from ..checking import check_paths
    from ..errors import MllogCheckError

    check_round_name("check", ruleset)
    setting = round_setting("check", ruleset)
    try:  # never guess: no evidence, or rules not in this build, is a usage error
        run = check_paths(paths, ruleset, strict=strict, include=include, setting=setting)
    except MllogCheckError as err:
        click.echo(f"mllog-check check: {err}", err=True)
        sys.exit(EXIT_USAGE)
    for line in run.lines(verbose):
        click.echo(line, err=True)
    if not run.verdicts:
        click.echo("mllog-check check: no result logs found", err=True)
    else:
        reporters.write(fmt, CHECK, run.verdicts, sys.stdout)
    sys.exit(run.exit_code)
