"""``mllog-check report PATH... --out report.html``: one self-contained HTML page."""

from __future__ import annotations

import sys

import click

from ..html_report.pages import PAGES
from ..results.filters import ResultFilter
from ..safety import human
from . import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    chosen_round,
    ruleset_option,
    selection_options,
    selection_or_exit,
    writable_or_exit,
)
from .filter_options import filter_options


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--out",
    "out",
    default="report.html",
    show_default=True,
    help="The HTML file to write (styles, script and charts inside it).",
)
@ruleset_option()
@click.option(
    "--prices",
    "price_files",
    multiple=True,
    help="Price catalog (.csv or .yaml): adds perf/$ and cost-per-run charts (repeatable).",
)
@click.option("--plots", "plots_dir", help="Also write every chart as a PNG into this folder.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "png"]),
    default="html",
    show_default=True,
    help="png: also write the charts as PNG images (into --plots, default: OUT's name + _plots).",
)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes.")
@click.option("--title", help="The page's title (default: from the paths and round).")
@click.option(
    "--link-base",
    metavar="URL",
    help="Link logs as URL/<path below the round or org folder> (an https:, http: or file: "
    "URL, e.g. the results repository's web address); default: paths relative to the "
    "report's folder, which work while the report stays beside the logs.",
)
@click.option(
    "--pages",
    type=click.Choice(PAGES),
    default="auto",
    show_default=True,
    help="split: a main page and, per benchmark and round, a linked detail page in "
    "OUT's name + _pages/; auto: split over more than two rounds; one: a single page.",
)
@click.option(
    "--from-audit",
    "from_audit",
    metavar="DIR",
    help="Read an audit's output folder (its record.json.gz, `audit --out DIR`) instead "
    "of the logs: the same page, no log read again.",
)
@selection_options
@filter_options
def report(
    paths: tuple[str, ...],
    out: str,
    ruleset: str,
    price_files: tuple[str, ...],
    plots_dir: str | None,
    fmt: str,
    jobs: int | None,
    title: str | None,
    link_base: str | None,
    pages: str,
    result_filter: ResultFilter,
    from_audit: str | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
) -> None:
    """One HTML report for PATH... (result folders, org folders or round folders):
    a sortable summary, time to train and convergence charts per benchmark, energy
    where measured, perf/$ with --prices, every problem and anomaly with its place.

    With --from-audit DIR (and no PATH), the rows and curves an audit wrote into DIR.

    Exit 0 clean, 1 problems or anomalies shown, 2 usage or input error.
    """
    from ..cost import CostError, PriceCatalogError
    from ..html_report import MissingDependency, ReportError, build_report
    from ..html_report.links import LinkBaseError, check_link_base
    from ..outputs import OutputError

    if bool(paths) == bool(from_audit):
        click.echo("mllog-check report: give PATH... or --from-audit DIR (one of them)", err=True)
        sys.exit(EXIT_USAGE)
    setting = chosen_round("report", ruleset)
    if setting is not None:  # the project's round, as every command takes it
        ruleset = setting.ruleset
    shown = selection_or_exit("report", select, ignore, preview)
    if fmt == "png" and not plots_dir:
        plots_dir = default_plots_dir(out)
    writable_or_exit("report", out, parents=True)  # the report makes its folder
    writable_or_exit("report", plots_dir, folder=True)
    try:
        if link_base is not None:
            check_link_base(link_base)
        data = None
        if from_audit is not None:
            from ..html_report.record import read_record

            data = read_record(from_audit)
        result = build_report(
            list(paths),
            out,
            ruleset,
            list(price_files),
            plots_dir,
            jobs,
            title,
            result_filter=result_filter,
            link_base=link_base,
            pages=pages,
            shown=shown,
            data=data,
        )
    except (
        ReportError,
        MissingDependency,
        CostError,
        PriceCatalogError,
        LinkBaseError,
        OutputError,
    ) as err:
        click.echo(human("mllog-check report: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    page = result.page
    pages = f"; detail pages in {result.out.stem}_pages/" if page.split else ""
    counts = (len(page.sets), len(page.data.runs), len(page.charts()))
    click.echo(human("wrote {}: {} results, {} runs, {} charts{}", result.out, *counts, pages))
    if result.plots:
        click.echo(human("wrote {} PNG charts to {}", len(result.plots), plots_dir))
    for row in result.inputs:  # never left out in silence (docs/security.md)
        click.echo(
            human("mllog-check report: not read: {}: {}", row["path"], row["message"]), err=True
        )
    sys.exit(EXIT_OK if result.clean else EXIT_PROBLEMS)


def default_plots_dir(out: str) -> str:
    """OUT's name without its suffix, + ``_plots``, in OUT's own folder (``o.d/report``
    gives ``o.d/report_plots``: a dot in a folder name is not a suffix)."""
    from pathlib import Path

    path = Path(out)
    return str(path.with_name(path.stem + "_plots")) if path.name else out + "_plots"
