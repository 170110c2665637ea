"""``mllog-check trends PATH...``: the best result per benchmark per round."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..reporters import tables
from ..reporters.text import write_problems
from ..results.filters import ResultFilter
from ..safety import human
from . import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    RULESET_HELP,
    check_round_name,
    round_setting,
    table_format_or_exit,
    writable_or_exit,
    write_output_file,
)
from .filter_options import filter_options


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--accelerators",
    "scale",
    type=click.IntRange(min=1),
    help="Also the best result at exactly this many accelerators per round (e.g. 8).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tables.offered(tables.TRENDS)),
    default="table",
    show_default=True,
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@click.option("--ruleset", default="auto", show_default=True, help=RULESET_HELP)
@click.option(
    "--open-speedups",
    is_flag=True,
    help="Open division: speed-ups between different systems too (left out by default).",
)
@click.option(
    "--from-audit",
    "from_audit",
    metavar="DIR",
    help="Read an audit's output folder (its record.json.gz, `audit --out DIR`) instead "
    "of the logs: the same rows, no log read again.",
)
@filter_options
def trends(
    paths: tuple[str, ...],
    scale: int | None,
    fmt: str,
    output: str | None,
    ruleset: str,
    open_speedups: bool,
    result_filter: ResultFilter,
    from_audit: str | None = None,
) -> None:
    """The fastest valid result per benchmark, division and round over PATH... (round
    folders, e.g. v4.0 v4.1 v5.0 v5.1), with the speed-up over the round before.
    Renamed benchmarks keep one line under their newest name (ssd -> retinanet,
    gnn -> rgat). Closed results whose RCP check failed do not count: a faster one
    is shown with the reason (excluded), and the next round's speed-up is over it. A
    best whose runs an earlier round published names that round (reused_from).
    Open-division speed-ups between different systems only with --open-speedups.

    With --from-audit DIR (and no PATH), the scores and runs an audit wrote into DIR.

    Inputs not read (a missing path, a link not followed, a log that is not a regular
    file) are listed on stderr. Exit 0 with rows, 1 with rows when an input was left
    out (a link not followed), 2 on usage or input errors or when no result counts.
    """
    from ..results.trends import compute_trends

    if bool(paths) == bool(from_audit):
        click.echo("mllog-check trends: give PATH... or --from-audit DIR (one of them)", err=True)
        sys.exit(EXIT_USAGE)
    table_format_or_exit("trends", fmt, output)
    check_round_name("trends", ruleset)
    setting = round_setting("trends", ruleset)
    writable_or_exit("trends", output)
    skipped: list[str] = []
    if from_audit is not None:
        report = _from_audit(from_audit, result_filter, scale, open_speedups)
    else:
        read, skipped, linked = _rounds_told_or_exit(paths, ruleset, setting)
        for folder in skipped:  # as report and audit list them
            click.echo(human("mllog-check trends: not read: {}: names no round", folder), err=True)
        report = compute_trends(read, result_filter, scale, ruleset, setting, open_speedups)
        report.inputs = sorted({*report.inputs, *linked})
    write_problems(report.inputs, sys.stderr)
    if not report.rows:
        click.echo(human("mllog-check trends: {}", _no_rows(report, result_filter)), err=True)
        sys.exit(EXIT_USAGE)
    table = _table(report, fmt)
    if output is not None:
        write_output_file("trends", fmt, table, output)
    else:
        tables.write(fmt, table, tables.stdout_for(fmt))
    if any(p.is_error for p in report.inputs):
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_PROBLEMS if report.inputs or skipped else EXIT_OK)


def _from_audit(
    folder: str, result_filter: ResultFilter, scale: int | None, open_speedups: bool
) -> Any:
    """The trends of an audit's record (html_report/record.py); exit 2 when it cannot
    be read (another version's, not a record, a link)."""
    from ..html_report.record import RecordError, read_record
    from ..results.trends import trends_from_rows

    try:
        data = read_record(folder)
    except RecordError as err:
        click.echo(human("mllog-check trends: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    return trends_from_rows(data.scores, data.runs, result_filter, scale, open_speedups)


_NOT_FOLLOWED = "symbolic link to a directory: not followed"  # as inputs.walk says it


def _rounds_told_or_exit(
    paths: tuple[str, ...], ruleset: str, setting: Any
) -> tuple[list[str], list[str], list[Any]]:
    """The paths to read and the folders left out, each round folder read as ``report``
    and ``audit`` read it (one reading of a round folder's name:
    ``submission.audit.round_of_folder``): a results repository root stands for its
    round folders (those naming no round are left out, and said), and a folder whose
    name (or a folder above it) tells no round is refused (``v6.0-full``: pass
    --ruleset), never taken from its logs' content. Files and missing paths are left to
    the scores (MLS010), and so is a linked round folder of a root (never followed)."""
    from pathlib import Path

    from ..problems import Severity
    from ..submission.audit import AuditError, expand_repositories, round_of_folder
    from ..syntax_codes import INPUT_ERROR

    flag = None if ruleset in ("", "auto") else ruleset
    read = [p for p in paths if not Path(p).is_dir()]
    folders = [Path(p) for p in paths if Path(p).is_dir()]
    roots, skipped = expand_repositories(folders)
    linked = [
        INPUT_ERROR.problem(str(sub), _NOT_FOLLOWED, severity=Severity.WARNING)
        for folder in folders
        if folder not in roots
        for sub in sorted(folder.iterdir())
        if sub.is_symlink() and sub.is_dir()
    ]
    for root in roots:
        try:
            round_of_folder(root, flag, setting)
        except AuditError as err:
            click.echo(human("mllog-check trends: {}", err), err=True)
            sys.exit(EXIT_USAGE)
    return [str(r) for r in roots] + read, skipped, linked


def _no_rows(report: Any, result_filter: ResultFilter) -> str:
    """Why no row: the filters only when they left out valid scores."""
    if result_filter.active and report.valid:
        return f"no result matches the filters ({result_filter.describe()})"
    if report.inputs and not report.scores:
        return "nothing read (see above)"
    return f"no valid score found ({report.scores} results read)"


def _table(report: Any, fmt: str) -> tables.Table:
    from ..results.hardware import short_accelerator
    from ..results.trends import trend_columns, trend_rows

    if fmt != "table":
        rows = trend_rows(report)
        return tables.Table(trend_columns(), rows, floats=("minutes", "speedup"))
    header = ["benchmark", "division", "scale", "round", "minutes", "speed-up", "org"]
    header += ["system", "accelerators", "model", "results", "note"]
    notes: list[str] = []
    body = [
        (
            r.benchmark + ("" if r.published_as == r.benchmark else f" ({r.published_as})"),
            r.division,
            r.scale,
            r.round,
            f"{r.minutes:.2f}",
            "" if r.speedup is None else f"{r.speedup:.2f}x",
            r.org,
            r.system_name or r.system,
            "" if r.accelerators is None else str(r.accelerators),
            short_accelerator(r.accelerator_model, r.system_name) or "",
            str(r.results),
            _note(r, notes),
        )
        for r in report.rows
    ]
    title = ("Best time to train per round (minutes)",)
    right = ("minutes", "speed-up", "accelerators", "results")
    return tables.Table(header, body, title=title, right=right, footer=_footer(notes))


def _note(row: Any, notes: list[str]) -> str:
    """Footnote marks of a row: why it does not count, where its runs came from."""
    marks = []
    for text in (
        f"excluded: {row.excluded}" if row.excluded else "",
        f"runs re-published from {row.reused_from}" if row.reused_from else "",
    ):
        if text:
            where = f"{row.round} {row.org}/{row.system} {row.benchmark}: {text}"
            notes.append(where)
            marks.append(f"[{len(notes)}]")
    return " ".join(marks)


def _footer(notes: list[str]) -> tuple[str, ...]:
    lines = [f"[{i}] {text}" for i, text in enumerate(notes, 1)]
    lines.append(
        "A published result that does not count (invalid for this tool's RCP check) is"
        " shown with the reason; the next round's speed-up is over the fastest result shown."
        " Open-division speed-ups between different systems are left out (--open-speedups)."
    )
    return tuple(lines)
