"""``mllog-check cost``: performance per dollar from the logs' scores and sourced prices."""

from __future__ import annotations

import csv
import sys
from typing import TextIO

import click
import orjson

from ..cost import CostError, CostReport, PriceCatalogError, cost_report, output
from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--prices",
    "price_files",
    multiple=True,
    required=True,
    help="Price catalog (.csv or .yaml); repeat to merge several.",
)
@click.option("--baseline", help="System (catalog name, alias, folder or system_name) = 1.0.")
@click.option("--benchmark", "benchmarks", multiple=True, help="Only this benchmark (repeatable).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option("--plot", "plot_path", help="Also draw a bar chart to FILE.png or FILE.svg.")
@click.option(
    "--allow-mixed", is_flag=True, help="Compare different divisions or rounds (footnoted)."
)
@click.option(
    "--ruleset",
    default="auto",
    show_default=True,
    help="Ruleset for scoring (auto: from the round folder or the logs).",
)
def cost(
    paths: tuple[str, ...],
    price_files: tuple[str, ...],
    baseline: str | None,
    benchmarks: tuple[str, ...],
    fmt: str,
    plot_path: str | None,
    allow_mixed: bool,
    ruleset: str,
) -> None:
    """Perf per dollar, ratio to a baseline, break-even price and cost per run.

    Scores are computed from the logs under PATH...; prices come from --prices
    catalogs (docs/cost.md). Perf/$ is not an official MLPerf metric. Exit 0 when
    every row has a perf/$, 1 when some result is not valid, 2 for a bad catalog,
    an unpriced system or a refused comparison (mixed divisions or rounds).
    """
    try:
        report = cost_report(
            list(paths), price_files, baseline, benchmarks, allow_mixed, ruleset=ruleset
        )
        if plot_path:
            from ..cost.plot import render

            render(report, plot_path)
    except (CostError, PriceCatalogError) as exc:
        click.echo(f"mllog-check cost: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    write_report(report, fmt, sys.stdout)
    sys.exit(EXIT_PROBLEMS if any(r.perf_per_dollar is None for r in report.rows) else EXIT_OK)


def write_report(report: CostReport, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        out.write(orjson.dumps(output.to_json(report), option=orjson.OPT_INDENT_2).decode())
        out.write("\n")
    elif fmt == "csv":
        csv.writer(out, lineterminator="\n").writerows(output.csv_rows(report))
    else:
        _write_table(report, out)


def _write_table(report: CostReport, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    header, body = output.table_cells(report)
    table = Table(*header, box=None, header_style="bold", pad_edge=False)
    for cells in body:
        table.add_row(*cells)
    console = Console(file=out, width=None if out.isatty() else 200, highlight=False)
    console.print(table)
    out.write("\nPrices:\n")
    for line in output.sources(report):
        out.write(f"  {line}\n")
    out.write(f"\n{output.full_note(report)}\n")
