"""One self-contained HTML page for a result, an org or a whole round (docs/report.md).

``build_report(paths, out)`` collects rows with the library's public functions
(audit, package checker, scores), reads every log's evaluations for the convergence
curves, and renders templates shipped in this package. jinja2 and matplotlib are
imported only here, and only when a report is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .build import Page, build_page
from .collect import ReportData, ReportError, collect
from .html import MissingDependency, render

__all__ = [
    "MissingDependency",
    "Page",
    "ReportData",
    "ReportError",
    "ReportResult",
    "build_page",
    "build_report",
    "collect",
    "render",
]


@dataclass
class ReportResult:
    page: Page
    out: Path
    plots: list[Path]

    @property
    def clean(self) -> bool:
        data = self.page.data
        if not self.page.sets and not data.runs:
            return False  # nothing checked is never success (docs/security.md)
        errors = any(p["severity"] == "error" for p in data.problems)
        return not errors and not data.anomalies and all(o["passed"] for o in data.orgs)


def build_report(
    paths: Sequence[str],
    out: str | Path,
    ruleset: str = "auto",
    prices: Sequence[str] = (),
    plots: str | Path | None = None,
    jobs: int | None = None,
    title: str | None = None,
) -> ReportResult:
    data = collect(list(paths), ruleset, jobs)
    page = build_page(data)
    if prices:
        from .costs import add_costs

        add_costs(page, list(prices))
    out = Path(out)
    html = render(page, out, title)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    written: list[Path] = []
    if plots is not None:
        from .plots import write_plots

        written = write_plots(page, Path(plots))
    return ReportResult(page, out, written)
