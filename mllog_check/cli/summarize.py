"""``mllog-check summarize ORG_DIR... --csv OUT.csv``: the official results tables."""

from __future__ import annotations

import sys
from pathlib import Path
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
    usage_option,
    with_usage,
    writable_or_exit,
    write_output_file,
)


@click.command()
@click.argument("orgs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option(
    "--csv",
    "csv_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="OUT.csv: strong then weak scaling; OUT_detailed.csv, OUT_power.csv (HPC) and "
    "OUT.json, OUT_detailed.json, OUT_power.json beside it.",
)
@click.option(
    "--xlsx",
    "xlsx_path",
    type=click.Path(dir_okay=False),
    help="Also a workbook: one sheet per division, rows by availability, IDs "
    "{round}-{NNNN} (openpyxl, of the analysis extra).",
)
@ruleset_option("Exit 2 without evidence.")
@usage_option()
@selection_options
def summarize(
    orgs: tuple[str, ...],
    csv_path: str,
    xlsx_path: str | None,
    ruleset: str,
    usage: str | None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
) -> None:
    """Write the official result summarizer's tables for ORG_DIR... (org folders of one
    round), cell for cell as ``result_summarizer --csv OUT.csv`` writes them, and
    nothing else: no file in the orgs' trees or the working folder.

    Exit 0 when every row was written, 1 when a system got no row or a problem was
    found, 2 on usage or input errors.
    """
    from ..results.summary import SummaryError
    from ..results.summary import summarize as build

    if xlsx_path is not None:
        _needs_openpyxl()
    orgs = _org_folders(orgs)
    outputs = _outputs(csv_path, xlsx_path, orgs)
    for target in [outputs[".csv"], *([Path(xlsx_path)] if xlsx_path else [])]:
        writable_or_exit("summarize", str(target), parents=True)  # before the run
    ruleset = with_usage("summarize", ruleset, usage)
    setting = chosen_round("summarize", ruleset)
    shown = selection_or_exit("summarize", select, ignore, preview)
    try:
        summary = build(list(orgs), ruleset, setting)
    except SummaryError as err:
        click.echo(human("mllog-check summarize: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    # The one point where the selection applies: the exit code follows what is shown.
    problems = sorted(shown.apply(summary.problems))
    written = _write(summary, outputs)
    if xlsx_path is not None:
        from ..outputs import OutputError
        from ..reporters.workbook import write_workbook

        try:
            write_workbook(summary, xlsx_path)
        except OutputError as err:
            click.echo(human("mllog-check summarize: {}", err), err=True)
            sys.exit(EXIT_USAGE)
        written.append(xlsx_path)
    write_problems(problems, sys.stderr)
    for path in written:
        click.echo(human("wrote {}", path))
    unread = any(not n.warning for n in summary.scores.not_scored)
    if unread and not (summary.strong.rows or (summary.weak and summary.weak.rows)):
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_PROBLEMS if any(p.is_error for p in problems) else EXIT_OK)


def _org_folders(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Org folders (holding results/); a round folder stands for its orgs, as the
    official tool's ``ROUND/{*}``. Exit 2 for a path that is neither."""
    from ..results.tree import is_org_folder

    orgs: list[str] = []
    for path in paths:
        folder = Path(path)
        if is_org_folder(folder):
            orgs.append(path)
            continue
        inside = sorted(p for p in folder.iterdir() if is_org_folder(p)) if folder.is_dir() else []
        if not inside:
            click.echo(
                human("mllog-check summarize: {}: not an org folder (no results/)", path), err=True
            )
            sys.exit(EXIT_USAGE)
        orgs.extend(str(p) for p in inside)
    return tuple(orgs)


def _outputs(csv_path: str, xlsx_path: str | None, orgs: tuple[str, ...]) -> dict[str, Path]:
    """OUT.csv's companions; exit 2 for a name without .csv or a file inside an org."""
    if not csv_path.endswith(".csv"):
        click.echo("mllog-check summarize: --csv names a file ending in .csv", err=True)
        sys.exit(EXIT_USAGE)
    base = csv_path[: -len(".csv")]
    paths = {
        name: Path(base + name)
        for name in (
            ".csv",
            ".json",
            "_detailed.csv",
            "_detailed.json",
            "_power.csv",
            "_power.json",
        )
    }
    trees = [Path(o).resolve() for o in orgs]
    for path in [*paths.values(), *([Path(xlsx_path)] if xlsx_path else [])]:
        where = path.resolve()
        if any(where == t or t in where.parents for t in trees):
            click.echo(
                human(
                    "mllog-check summarize: {} lies inside an org folder; the tables are "
                    "never written into the tree they summarize",
                    path,
                ),
                err=True,
            )
            sys.exit(EXIT_USAGE)
    return paths


def _needs_openpyxl() -> None:
    from ..extras import MissingExtra, require

    try:
        require("openpyxl", "--xlsx")
    except MissingExtra as err:
        click.echo(human("mllog-check summarize: {}", err), err=True)
        sys.exit(EXIT_USAGE)


def _write(summary: Any, paths: dict[str, Path]) -> list[str]:
    """The official tool's files: OUT.csv always (strong, then weak when it has rows);
    OUT.json the last of those tables (weak for HPC, as the official tool leaves it);
    the detailed and power files when they have rows (power CSV: its header)."""
    from ..results.summary import table_row

    def table(t: Any, rows: bool = True) -> tables.Table:
        return tables.Table(t.columns, [table_row(t, r) for r in t.rows] if rows else [])

    main = [table(summary.strong)]
    if summary.weak is not None and summary.weak.rows:
        main.append(table(summary.weak))
    written = [_file("csv", main, paths[".csv"]), _file("json", main[-1], paths[".json"])]
    if summary.detailed.rows:
        detailed = table(summary.detailed)
        written += [_file("csv", detailed, paths["_detailed.csv"])]
        written += [_file("json", detailed, paths["_detailed.json"])]
    if summary.power is not None and summary.power.rows:
        written += [_file("csv", table(summary.power, rows=False), paths["_power.csv"])]
        written += [_file("json", table(summary.power), paths["_power.json"])]
    return written


def _file(fmt: str, content: Any, path: Path) -> str:
    write_output_file("summarize", fmt, content, str(path))
    return str(path)
