"""``mllog-check hparams``: the hyperparameters of result sets as a table; borrowing
candidates (``--same-as``) and declared borrowing checked (``--borrowing``)."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..reporters import tables
from ..reporters.text import write_problems
from ..safety import human
from . import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    chosen_round,
    ruleset_option,
    selection_options,
    selection_or_exit,
    table_format_or_exit,
    usage_option,
    with_usage,
    writable_or_exit,
    write_output_file,
)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@ruleset_option("Each result set's own round by default.")
@usage_option()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tables.offered(tables.HPARAMS)),
    default="table",
    show_default=True,
)
@click.option(
    "--same-as",
    "same_as",
    is_flag=True,
    help="Only closed results whose constrained hyperparameters (all but the batch size) "
    "equal another submitter's, grouped: the candidates for a borrowing declaration.",
)
@click.option(
    "--borrowing",
    "borrowing",
    type=click.Path(dir_okay=False),
    help="A YAML file of declared borrowings (result: from:): each checked key by key.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@selection_options
def hparams(
    paths: tuple[str, ...],
    ruleset: str,
    usage: str | None,
    fmt: str,
    same_as: bool,
    borrowing: str | None,
    output: str | None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
) -> None:
    """One row per result set (round, org, system, benchmark, division), a column per
    hyperparameter the round's closed rules constrain: the first value logged, with the
    keys on which the set's runs disagree (docs/hparams.md).

    Exit 0 when nothing is wrong, 1 when a declared borrowing differs from its lender or
    names no result read, 2 on usage or input errors.
    """
    from ..results.borrowing import BorrowingError, check_declarations, load_declarations
    from ..results.hparams import hparam_table

    table_format_or_exit("hparams", fmt, output)
    ruleset = with_usage("hparams", ruleset, usage)
    setting = chosen_round("hparams", ruleset)
    shown = selection_or_exit("hparams", select, ignore, preview)
    try:
        declared = load_declarations(borrowing) if borrowing else []
    except BorrowingError as err:
        click.echo(human("mllog-check hparams: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    writable_or_exit("hparams", output)
    report = hparam_table(list(paths), ruleset=ruleset, setting=setting)
    if not report.rows:
        write_problems(report.problems, sys.stderr)
        click.echo("error: no result_*.txt files found", err=True)
        sys.exit(EXIT_USAGE)
    found = check_declarations(declared, report.rows, borrowing) if borrowing else []
    # The one point where the selection applies: the exit code follows what is shown
    # (what could not be read, an input error, is never deselected).
    found = shown.apply(found)
    made = _tables(report, fmt, same_as)
    if output is not None:
        write_output_file("hparams", fmt, made, output)
    else:
        tables.write(fmt, made, tables.stdout_for(fmt))
    write_problems(sorted([*shown.apply(report.problems), *found]), sys.stderr)
    unread = any(p.is_error for p in report.problems)
    sys.exit(EXIT_USAGE if unread else EXIT_PROBLEMS if found else EXIT_OK)


def _tables(report: Any, fmt: str, same_as: bool) -> list[tables.Table]:
    """The human format: one grid per benchmark (its own keys); the others: one table
    with every key as a column (empty where a benchmark has no such key)."""
    from ..results.hparams import same_as_groups

    rows = report.rows
    groups: dict[int, str] = {}
    if same_as:
        found = same_as_groups(rows)
        groups = {id(r): f"G{n}" for n, group in enumerate(found, 1) for r in group}
        rows = [r for group in found for r in group]
    lead = ["group"] if same_as else []
    if fmt != "table":
        columns = [*lead, *report.columns()]
        cells = [{"group": groups.get(id(r)), **r.cells()} for r in rows]
        return [tables.Table(columns, cells)]
    out = []
    for bench in sorted({r.benchmark for r in rows}):
        mine = [r for r in rows if r.benchmark == bench]
        keys = sorted({k for r in mine for k in r.keys})
        columns = [*lead, "round", "org", "system", "division", "runs", *keys, "disagree"]
        cells = [{"group": groups.get(id(r)), **r.cells()} for r in mine]
        out.append(tables.Table(columns, cells, title=("", bench), footer=_notes(mine)))
    if not out:
        out.append(tables.Table(["group"], [], title=("no closed results share hyperparameters",)))
    return out


def _notes(rows: list[Any]) -> tuple[str, ...]:
    notes = sorted({r.note for r in rows if r.note})
    return tuple(f"note: {n}" for n in notes)
