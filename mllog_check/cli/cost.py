"""``mllog-check cost``: performance per dollar from the logs' scores and sourced prices."""

from __future__ import annotations

import sys
from typing import IO, Any

import click

from ..cost import Assumptions, CostError, CostReport, PriceCatalogError, cost_report, output
from ..reporters import tables
from ..results.filters import ResultFilter
from ..safety import human
from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, chosen_round, ruleset_option
from .filter_options import filter_options


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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tables.offered(tables.COST)),
    default="table",
    show_default=True,
)
@click.option("--plot", "plot_path", help="Also draw a bar chart to FILE.png or FILE.svg.")
@click.option(
    "--scale-plot",
    "scale_plot",
    help="Also plot cost per run against system scale (accelerators), one benchmark, to FILE.",
)
@click.option(
    "--life-years",
    type=click.FloatRange(min=0, min_open=True),
    help="Purchase prices: years over which the system is amortized (else the catalog's "
    "life_years; stated with --utilization, it gives cost per run; default 4 for hardware).",
)
@click.option(
    "--utilization",
    type=click.FloatRange(0, 1, min_open=True),
    help="Purchase prices: share of its life the system spends training (else the "
    "catalog's utilization; default 0.8 for hardware).",
)
@click.option(
    "--kwh-price",
    type=click.FloatRange(min=0),
    help="Electricity price per kWh (currency of the prices); else the catalog's kwh_price.",
)
@click.option(
    "--pue",
    type=click.FloatRange(min=1.0),
    default=1.0,
    show_default=True,
    help="Power usage effectiveness: facility energy / measured IT energy.",
)
@click.option(
    "--allow-mixed", is_flag=True, help="Compare different divisions or rounds (footnoted)."
)
@ruleset_option()
@filter_options
def cost(
    paths: tuple[str, ...],
    price_files: tuple[str, ...],
    baseline: str | None,
    fmt: str,
    plot_path: str | None,
    scale_plot: str | None,
    life_years: float | None,
    utilization: float | None,
    kwh_price: float | None,
    pue: float,
    allow_mixed: bool,
    ruleset: str,
    result_filter: ResultFilter,
) -> None:
    """Perf per dollar, ratio to a baseline, break-even price and cost per run.

    Scores are computed from the logs under PATH...; prices come from --prices
    catalogs (docs/cost.md). Rows are grouped by round, division and benchmark;
    ratios only within a group. Cost per run: hardware time (hourly price × instances
    × hours, or the purchase price amortized) plus electricity where power logs give
    the energy. Perf/$ is not an official MLPerf metric. Exit 0 when every row has a
    perf/$, 1 when some result is not valid or not priced, 2 for a bad catalog or a
    refused comparison (a --baseline in another division or round without --allow-mixed).
    """
    assumed = Assumptions(life_years, utilization, kwh_price, pue)
    if tables.FORMATS[fmt].binary and sys.stdout.isatty():
        click.echo(human("error: {} is binary: redirect stdout to a file", fmt), err=True)
        sys.exit(EXIT_USAGE)
    _needs_extras(fmt, bool(plot_path or scale_plot))
    from ..outputs import OutputError

    setting = chosen_round("cost", ruleset)
    try:
        report = cost_report(
            list(paths),
            price_files,
            baseline,
            result_filter.benchmarks,
            allow_mixed,
            ruleset=ruleset,
            divisions=result_filter.divisions,
            assumptions=assumed,
            setting=setting,
            keep=result_filter.keeps,
        )
        if plot_path or scale_plot:
            from ..cost.plot import check_plot_path, render, render_scale, scale_rows

            # Every refusal before any file is written.
            for path in (p for p in (plot_path, scale_plot) if p):
                check_plot_path(path)
            if scale_plot:
                scale_rows(report)
            if plot_path:
                render(report, plot_path)
            if scale_plot:
                render_scale(report, scale_plot)
    except (CostError, PriceCatalogError, OutputError) as exc:
        click.echo(human("mllog-check cost: error: {}", exc), err=True)
        sys.exit(EXIT_USAGE)
    write_report(report, fmt, tables.stdout_for(fmt))
    sys.exit(EXIT_PROBLEMS if any(r.perf is None for r in report.rows) else EXIT_OK)


def _needs_extras(fmt: str, plot: bool) -> None:
    """Parquet (pyarrow) and plots (matplotlib) need the analysis extra: say so first."""
    from ..extras import MissingExtra, require

    try:
        tables.require(fmt, "Parquet output")
        if plot:
            require("matplotlib", "plots")
    except MissingExtra as err:
        click.echo(human("mllog-check cost: {}", err), err=True)
        sys.exit(EXIT_USAGE)


def write_report(report: CostReport, fmt: str, out: IO[Any]) -> None:
    tables.write(fmt, report_table(report, fmt), out)


def report_table(report: CostReport, fmt: str) -> tables.Table:
    """The human table with its price sources and notes, or every column of every row."""
    if fmt == "table":
        header, body = output.table_cells(report)
        return tables.Table(header, body, footer=_footer(report))
    columns, *rows = output.csv_rows(report)
    return tables.Table(
        [str(c) for c in columns],
        rows,
        document=output.to_json(report),
        floats=output.FLOAT_COLUMNS,
    )


def _footer(report: CostReport) -> tuple[str, ...]:
    lines = ["", "Prices:", *(f"  {line}" for line in output.sources(report))]
    if any(r.total_per_run is not None for r in report.rows):
        lines += ["", "Cost per run assumes:"]
        lines += [f"  {line}" for line in report.assumption_lines()]
        unknown = [r for r in report.rows if r.total_per_run is not None and r.energy_kwh is None]
        if unknown:
            lines.append(f"  {len(unknown)} result(s) without power logs: energy not in the total")
        for r in report.rows:
            if r.total_per_run is not None and r.energy_kwh is not None:
                lines.append(f"  {r.system} {r.benchmark}: {r.energy_note}")
    lines += ["", output.full_note(report, assumptions=False)]
    return tuple(lines)
