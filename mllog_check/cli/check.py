"""``mllog-check check``: compliance of result logs with a round's rules.

Kept light for the pre-commit hook: no pandas, scipy, matplotlib or rich here.
"""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import click

from ..inputs import expand
from ..reporters import REPORTERS
from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE

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
    default="1.0.0",
    show_default=True,
    help="Round: 1.0.0 or training-1.0.0; 'auto' picks it per log from a round folder in the "
    "path (v1.1/, training_results_v1.1/) or the log's content. 0.5.0: parse checks only.",
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
    Exit 0 when every log is compliant, 1 when some is not, 2 on a usage or input error.
    """
    from .. import reporters
    from ..parsing import parse_source
    from ..records import ParseResult
    from ..rules import UnknownRuleset, check_log, detect, load_ruleset

    ruleset = detect.spelled_out(ruleset)
    auto = detect.needs_detection(ruleset)
    try:
        if not auto:
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
        if auto:  # nothing was read, so no round to detect
            verdicts.append(detect.parse_only(result, ruleset))
            continue
        verdicts.append(check_log(result, ruleset, strict=strict))
    for source in sources:
        result = parse_source(source)
        input_error |= result.input_error
        if not auto:
            if verbose:
                click.echo(f"{result.path}: ruleset {ruleset} (from --ruleset)", err=True)
            verdicts.append(check_log(result, ruleset, strict=strict))
            continue
        try:  # --ruleset auto (or 0.5.0): never guess; no evidence is a usage error
            verdict, found = detect.check_detected(result, ruleset, strict=strict)
        except detect.DetectionError as err:
            click.echo(f"mllog-check check: {err}", err=True)
            sys.exit(EXIT_USAGE)
        if verbose:
            click.echo(f"{result.path}: {found.describe()}", err=True)
        if not found.has_rules:
            click.echo(
                f"{result.path}: no compliance rules exist for round {found.ruleset}; "
                "parse checks only",
                err=True,
            )
        verdicts.append(verdict)
    if not verdicts:
        click.echo("mllog-check check: no result logs found", err=True)
        sys.exit(EXIT_USAGE)
    reporters.get(fmt)(verdicts, sys.stdout)
    if input_error:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_OK if all(v.passed for v in verdicts) else EXIT_PROBLEMS)
