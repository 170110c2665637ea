"""The report of many rounds as one self-contained folder (docs/report.md, "The whole
record"): the main page keeps what a reader asks first (headlines, the summary table, the
ranked results, across rounds, problems) and links, per benchmark and round, to a
detail page with its time-to-train chart and convergence curves, written beside it in
``<OUT name>_pages/``. Every page carries its own styles and script.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .build import IndexEntry, Page, ResultSetView, benchmark_view, slug
from .links import encode_path

# More rounds than this on one page: per-round, per-benchmark detail on linked pages.
SPLIT_ROUNDS = 2
# Problems shown inline per code on a main page; all of them are in the side file.
MAIN_INLINE_PROBLEMS = 20
PAGES = ("auto", "one", "split")


def splits(page: Page, pages: str) -> bool:
    """Whether the report is a folder of pages: asked for, or (auto) over more than
    ``SPLIT_ROUNDS`` rounds, where one page would grow past what a browser opens fast."""
    if pages == "auto":
        return len(page.data.rulesets) > SPLIT_ROUNDS
    return pages == "split"


@dataclass
class Detail:
    """One benchmark of one round: its file in the pages folder and its page."""

    file: str
    page: Page


def split(page: Page, folder: str, home: str) -> list[Detail]:
    """The detail pages of ``page`` (one per benchmark and round, named
    ``<round>-<benchmark>.html`` inside ``folder``), and ``page`` made the main page:
    its benchmark sections become an index of those pages, its summary rows link there.
    ``home``: the main page's file name, for the way back."""
    page.split = True
    page.inline_problems = min(page.inline_problems, MAIN_INLINE_PROBLEMS)
    details: list[Detail] = []
    taken: set[str] = set()
    for bench in page.benchmarks:
        by_round: dict[str, list[ResultSetView]] = defaultdict(list)
        for view in bench.sets:
            by_round[_round(view)].append(view)
        for label, views in sorted(by_round.items(), key=lambda kv: _round_key(kv[0])):
            file = _unique(slug(label, bench.name), taken)
            details.append(Detail(file, _detail(page, bench.name, label, views, home)))
            href = "./" + encode_path(f"{folder}/{file}")  # names are data: no scheme
            for view in views:
                page.detail_href[view.anchor] = href
            bench.index.append(_entry(label, href, views))
        bench.charts = []
    return details


def _detail(page: Page, name: str, label: str, views: list[ResultSetView], home: str) -> Page:
    view = benchmark_view(name, views)
    for chart in view.charts:  # one name per round across the folder (--plots files)
        chart.id = slug(chart.id, label)
    detail = Page(page.data, views, [view], [], page.glossary)
    detail.detail = f"{name}, {label}"
    detail.home = "../" + encode_path(home)
    return detail


def _unique(stem: str, taken: set[str]) -> str:
    """A file name no other detail page has (``a.b`` and ``a-b`` slug alike)."""
    name, n = f"{stem}.html", 1
    while name.casefold() in taken:
        n += 1
        name = f"{stem}-{n}.html"
    taken.add(name.casefold())
    return name


def _entry(label: str, href: str, views: list[ResultSetView]) -> IndexEntry:
    """An index line: the round, its page, its fastest valid result (closed first)."""
    timed = [v for v in views if v.score.get("valid") and v.score.get("minutes") is not None]
    closed = [v for v in timed if v.score.get("division") == "closed"]
    best = min(closed or timed, key=lambda v: (float(v.score["minutes"]), v.key), default=None)
    return {
        "round": label,
        "href": href,
        "results": len(views),
        "best": best,
    }


def _round(view: ResultSetView) -> str:
    from ..rounds import RoundError, parse_round

    ruleset = str(view.score.get("ruleset") or "")
    try:
        return parse_round(ruleset).folder if ruleset else "unscored"
    except RoundError:
        return ruleset


def _round_key(label: str) -> tuple[int, tuple[int, ...]]:
    """HPC rounds after Training, each in round order."""
    hpc = label.startswith("hpc-")
    digits = label.removeprefix("hpc-").lstrip("v").split(".")
    try:
        return (int(hpc), tuple(int(d) for d in digits))
    except ValueError:
        return (2, ())
