"""``mllog-check check``: compliance of result logs with a round's rules.

Kept light for the pre-commit hook: no pandas, scipy, matplotlib or rich here.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import sys
from pathlib import Path

import click

from ..inputs import expand
from ..reporters import REPORTERS
from ..rounds import RoundError
from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, RULESET_HELP, check_round_name, round_setting

# Inside a directory, these files are result logs, as the official tools name them
# (explicitly named files are always checked; --include adds other names). Not "*.log":
# the official checker writes compliance_checker.log into the folder it runs in.
RESULT_PATTERNS = ("result_*.txt", "result_*.txt.gz")


def is_result_log(path: Path, extra: tuple[str, ...] = ()) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in RESULT_PATTERNS + extra)


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
    type=click.Choice(sorted(REPORTERS)),
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
    from ..parsing import parse_source
    from ..records import ParseResult
    from ..rules import UnknownRuleset, check_log, detect, load_ruleset

    check_round_name("check", ruleset)
    setting = round_setting("check", ruleset)
    custom = ruleset.endswith(".yaml")  # a rule file given by path: no round to choose
    try:
        if custom:
            load_ruleset(ruleset)
    except UnknownRuleset as err:
        click.echo(f"mllog-check check: {err}", err=True)
        sys.exit(EXIT_USAGE)
    sources, input_problems = expand(list(paths), accept=lambda path: is_result_log(path, include))
    verdicts = []
    input_error = False
    for problem in input_problems:
        result = ParseResult(path=problem.path, input_error=problem.is_error)
        result.problems.append(problem)
        input_error |= problem.is_error
        verdicts.append(detect.parse_only(result, ruleset))  # nothing read: no round to choose
    for source in sources:
        result = parse_source(source)
        input_error |= result.input_error
        if custom:
            if verbose:
                click.echo(f"{result.path}: ruleset {ruleset} (from flag: --ruleset)", err=True)
            verdicts.append(check_log(result, ruleset, strict=strict))
            continue
        try:  # never guess: no evidence, or rules not in this build, is a usage error
            verdict, found = detect.check_chosen(result, ruleset, strict=strict, setting=setting)
        except RoundError as err:
            click.echo(f"mllog-check check: {err}", err=True)
            sys.exit(EXIT_USAGE)
        if verbose:
            click.echo(f"{result.path}: {found.describe()}", err=True)
        if found.note:
            click.echo(f"{result.path}: note: {found.note}", err=True)
        if not found.round.has("rules"):
            click.echo(
                f"{result.path}: no compliance rules exist for round {found.ruleset}; "
                "parse checks only",
                err=True,
            )
        verdicts.append(dataclasses.replace(verdict, ruleset_source=found.source))
    if not verdicts:
        click.echo("mllog-check check: no result logs found", err=True)
        sys.exit(EXIT_USAGE)
    reporters.get(fmt)(verdicts, sys.stdout)
    if input_error:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_OK if all(v.passed for v in verdicts) else EXIT_PROBLEMS)
