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
from typing import TYPE_CHECKING

from ..outputs import open_output
from .build import Page, build_page, unique_ids
from .collect import ReportData, ReportError, collect
from .html import MissingDependency, render

if TYPE_CHECKING:
    from ..results.filters import ResultFilter
    from ..selection import Selection
    from ..submission.ranking import AnomalyRow
    from .collect import ProblemShown

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
        passed = all(o["passed"] for o in data.orgs)
        return not errors and not self.inputs and not data.anomalies and passed

    @property
    def inputs(self) -> list[ProblemShown | AnomalyRow]:
        """What was not read: a link not followed, a missing or special file (MLS010), a
        folder of a round or a repository not audited (MLA021); path and message."""
        from ..submission.codes import NOT_AUDITED
        from ..syntax_codes import INPUT_ERROR

        data = self.page.data
        found: list[ProblemShown | AnomalyRow] = []
        found.extend(p for p in data.problems if p["rule"] == INPUT_ERROR.code)
        return found + [a for a in data.anomalies if a["code"] == NOT_AUDITED.code]


def build_report(
    paths: Sequence[str],
    out: str | Path,
    ruleset: str = "auto",
    prices: Sequence[str] = (),
    plots: str | Path | None = None,
    jobs: int | None = None,
    title: str | None = None,
    result_filter: ResultFilter | None = None,
    link_base: str | None = None,
    inline_problems: int | None = None,
    pages: str = "auto",
    shown: Selection | None = None,
    data: ReportData | None = None,
) -> ReportResult:
    """The report of ``paths`` written to ``out``: one page, or (``pages`` "split", or
    "auto" over more than two rounds) a main page and per benchmark and round a detail
    page in ``<out name>_pages/`` beside it (``pages.py``; docs/report.md). ``data``:
    the rows already gathered (an audit's record, ``record.read_record``), not ``paths``."""
    from .pages import split, splits

    if data is None:
        data = collect(list(paths), ruleset, jobs)
    if result_filter is not None and result_filter.active:
        from ..results.filters import filter_report_data

        found = bool(data.scores or data.runs)  # else the page says why: not the filters
        data = filter_report_data(data, result_filter)
        if found and not data.scores and not data.runs:
            raise ReportError(f"no result matches the filters ({result_filter.describe()})")
    if shown is not None:  # --select, --ignore, --preview: what the page and exit show
        data.problems = shown.rows(data.problems, "rule")
        data.anomalies = shown.rows(data.anomalies, "code")
    page = build_page(data)
    if prices:
        from .costs import add_costs

        add_costs(page, list(prices))
    unique_ids(page.charts())
    out = Path(out)
    folder = out.stem + "_pages"
    details = split(page, folder, out.name) if splits(page, pages) else []
    if inline_problems is not None:
        page.inline_problems = inline_problems
    out.parent.mkdir(parents=True, exist_ok=True)
    with open_output(out, newline="") as handle:  # refused before anything is written
        if page.problems_cut():
            side = out.with_name(out.stem + "_problems.txt")
            _write_problems(page, side)
            from .links import encode_path

            page.problems_file = "./" + encode_path(side.name)
            page.problems_file_name = side.name
        handle.write(render(page, out, title, link_base))
    if details:
        from ..outputs import output_folder

        where = output_folder(out.with_name(folder))  # a link in its place is refused
        for detail in details:
            with open_output(where / detail.file, newline="") as handle:
                handle.write(render(detail.page, where / detail.file, None, link_base))
    written: list[Path] = []
    if plots is not None:
        from .plots import write_plots

        written = write_plots(page, Path(plots))
        for detail in details:  # a folder of pages: every detail page's charts too
            written += write_plots(detail.page, Path(plots))
    return ReportResult(page, out, written)


def _write_problems(page: Page, path: Path) -> None:
    """Every problem and anomaly of the page, one a line (path:line: severity code
    message), for groups too long to show inline; control, invisible and look-alike
    characters escaped (safety.printable)."""
    from ..safety import printable

    with open_output(path, newline="\n") as out:
        for group in page.groups:
            for code in group["codes"]:
                for item in code["items"]:
                    where = item["path"] + (f":{item['line']}" if item["line"] else "")
                    line = f"{where}: {group['severity']} {code['code']} {item['message']}"
                    out.write(printable(line) + "\n")
