"""The report of many rounds as a folder of pages (docs/report.md, "The whole record"),
in headless Chromium: a main page that answers "who is fastest" on a phone's first
screen and links, per benchmark and round, to detail pages, each self-contained.

The whole-record tests build the corpus root's report once per session (minutes on a
shared machine); ``MLLOG_RECORD_REPORT=/path/report.html`` reuses one built before from
the same corpus with this build (``benchmarks/report_bench.py --record`` measures it).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from report_browser import CHART_STATS, Browser

from mllog_check.html_report import build_report

pytestmark = pytest.mark.corpus
PHONE = {"width": 390, "height": 844}
RECORD_MB, RECORD_OPEN_S = 10.0, 3.0  # the whole record's main page (docs/report.md)


def _tab(browser: Browser, viewport: dict[str, int]) -> tuple[Any, list[str]]:
    context = browser.browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    tab = context.new_page()
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.route(
        "**/*",
        lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort(),
    )
    return tab, errors


def _load(tab: Any, page: Path) -> float:
    import time

    start = time.perf_counter()
    tab.goto(page.resolve().as_uri(), wait_until="load")
    tab.wait_for_selector("html[data-ready='1']")
    return time.perf_counter() - start


def _links(tab: Any) -> list[str]:
    return list(
        tab.evaluate(
            "Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))"
        )
    )


def _check_folder(browser: Browser, main: Path) -> list[Path]:
    """Every link from the main page to a detail page resolves to a file and an anchor in
    it; every detail page loads without error, draws its charts, and links back."""
    tab, errors = _tab(browser, {"width": 1280, "height": 900})
    _load(tab, main)
    folder = main.parent / f"{main.stem}_pages"
    targets = {h for h in _links(tab) if h.startswith(f"./{folder.name}/")}
    assert targets
    files = sorted(folder.glob("*.html"))
    assert {h.split("#")[0] for h in targets} == {f"./{folder.name}/{f.name}" for f in files}
    anchors: dict[str, set[str]] = {}
    for page in files:
        _load(tab, page)
        tab.evaluate("document.dispatchEvent(new Event('mllog-draw-all'))")  # every chart
        tab.wait_for_selector("html[data-drawn='1']")
        assert errors == [], (page.name, errors)
        charts = tab.evaluate(CHART_STATS)
        assert charts and all(c["drawnPoints"] == c["declaredPoints"] for c in charts)
        assert tab.locator("#home").get_attribute("href") == f"../{main.name}"
        anchors[page.name] = set(
            tab.evaluate("Array.from(document.querySelectorAll('[id]')).map(e => e.id)")
        )
    for href in targets:
        file, _, anchor = href.removeprefix(f"./{folder.name}/").partition("#")
        assert not anchor or anchor in anchors[file], href
    tab.context.close()
    return files


def test_several_rounds_as_a_folder_of_pages(
    corpus: Path, browser: Browser, tmp_path: Path
) -> None:
    main = tmp_path / "r.html"
    result = build_report([str(corpus / "v2.0"), str(corpus / "v4.1")], main, jobs=2, pages="split")
    assert result.page.split
    files = _check_folder(browser, main)
    names = {f.stem for f in files}
    assert {"v2-0-retinanet", "v4-1-retinanet", "v4-1-rgat", "v2-0-bert"} <= names
    tab, errors = _tab(browser, {"width": 1280, "height": 900})
    _load(tab, main)
    assert errors == []
    kinds = {c["kind"] for c in tab.evaluate(CHART_STATS)}
    assert "strip" not in kinds  # time to train per run: on the detail pages only
    tab.context.close()
    # Two rounds, auto: one page as before.
    one = tmp_path / "one.html"
    assert not build_report([str(corpus / "v2.0"), str(corpus / "v4.1")], one, jobs=2).page.split
    assert not (tmp_path / "one_pages").exists()


def _first_screen(tab: Any) -> dict[str, Any]:
    items = tab.locator("ul.headlines li")
    boxes = [items.nth(i).bounding_box() for i in range(items.count())]
    return {
        "width": tab.evaluate("document.documentElement.scrollWidth"),
        "visible": [
            text
            for text, box in zip(items.all_inner_texts(), boxes, strict=True)
            if box is not None and box["y"] + box["height"] <= PHONE["height"]
        ],
        "count": items.count(),
    }


@pytest.fixture(scope="session")
def record(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole corpus in one report, built once (or reused: MLLOG_RECORD_REPORT)."""
    given = os.environ.get("MLLOG_RECORD_REPORT")
    if given and Path(given).is_file():
        return Path(given)
    main = tmp_path_factory.mktemp("record") / "report.html"
    build_report([str(corpus)], main, jobs=2)
    return main


@pytest.mark.slow
def test_the_whole_record_is_small_and_opens_fast(record: Path, browser: Browser) -> None:
    folder = record.parent / f"{record.stem}_pages"
    assert record.stat().st_size <= RECORD_MB * 1e6
    details = sorted(folder.glob("*.html"))
    assert len(details) > 50  # per benchmark and round
    assert max(d.stat().st_size for d in details) <= RECORD_MB * 1e6
    tab, errors = _tab(browser, {"width": 1280, "height": 900})
    seconds = min(_load(tab, record) for _ in range(2))
    assert errors == []
    assert seconds <= RECORD_OPEN_S, seconds
    tab.context.close()


@pytest.mark.slow
def test_the_whole_record_answers_who_is_fastest_on_a_phone(record: Path, browser: Browser) -> None:
    tab, errors = _tab(browser, PHONE)
    _load(tab, record)
    assert errors == []
    screen = _first_screen(tab)
    assert screen["width"] <= PHONE["width"]  # no horizontal scroll
    assert screen["count"] > 10 and len(screen["visible"]) >= 3
    for text in screen["visible"]:  # benchmark, minutes, hardware, round/org · system
        assert re.match(r"\S+ [\d.,]+ min .* v?[\w.-]+/\S+ · \S", text), text
    tab.context.close()


def test_plots_of_a_folder_of_pages_are_every_pages_charts(corpus: Path, tmp_path: Path) -> None:
    png = tmp_path / "png"
    result = build_report(
        [str(corpus / "v2.0")], tmp_path / "r.html", jobs=2, plots=png, pages="split"
    )
    names = sorted(p.name for p in result.plots)
    assert len(names) == len(set(names)) == len(list(png.glob("*.png")))
    assert "ttt-retinanet-v2-0.png" in names  # a detail page's time to train, per round
    assert any(n.startswith("conv-") for n in names)


def test_odd_names_get_their_own_page_and_encoded_links(corpus: Path, tmp_path: Path) -> None:
    # A report whose name needs encoding: links stay inside its folder; two benchmark
    # names that slug alike (a.b, a-b) get a page each.
    from mllog_check.html_report.pages import _unique

    main = tmp_path / "out" / "a #b?.html"
    result = build_report([str(corpus / "v2.0")], main, jobs=2, pages="split")
    folder = main.parent / "a #b?_pages"
    hrefs = set(result.page.detail_href.values())
    assert hrefs and all(h.startswith("./a%20%23b%3F_pages/") for h in hrefs), hrefs
    assert {h.rsplit("/", 1)[1] for h in hrefs} == {p.name for p in folder.glob("*.html")}
    taken: set[str] = set()
    assert [_unique("v2-0-a-b", taken) for _ in range(2)] == ["v2-0-a-b.html", "v2-0-a-b-2.html"]


def _largest_round(corpus: Path) -> Path:
    """The Training round of the corpus with the most bytes of result logs."""
    sizes = {
        folder: sum(p.stat().st_size for p in folder.rglob("result_*.txt") if p.is_file())
        for folder in corpus.iterdir()
        if folder.is_dir() and re.fullmatch(r"v\d+\.\d+", folder.name)
    }
    return max(sizes, key=lambda f: sizes[f])


def _heavy(data: Any, benchmark: str, copies: int) -> Any:
    """The report's rows with ``benchmark``'s results repeated under ``copies`` more
    orgs: a detail page as large as the published record's (U-Net3D of v2.0-v4.0: tens
    of results, 2.9 MB), made from real curves."""
    import copy

    mine = [s for s in data.scores if s["benchmark"] == benchmark]
    runs = [r for r in data.runs if r["benchmark"] == benchmark]
    for n in range(copies):
        org = f"Copy{n}"
        for score in mine:
            row = copy.deepcopy(score)
            row["org"], row["folder"] = org, org + "/" + score["folder"].split("/", 1)[1]
            data.scores.append(row)
        for run in runs:
            row = copy.deepcopy(run)
            row["org"], row["path"] = org, org + "/" + run["path"].split("/", 1)[1]
            data.runs.append(row)
            data.curves[row["path"]] = data.curves[run["path"]]
    return data


def test_a_detail_page_draws_its_first_screen_first(
    corpus: Path, browser: Browser, tmp_path: Path
) -> None:
    """Opening a page costs the charts of its first screen only (docs/report.md,
    "Opening time"): on the largest corpus round's page with the most evaluations,
    made as large as the published record's, the page is ready well before every chart
    is drawn, having drawn only charts near the first screen; then every point is drawn."""
    from mllog_check.html_report.collect import collect

    data = collect([str(_largest_round(corpus))], jobs=2)
    evaluations: dict[str, int] = {}
    for run in data.runs:
        curve = data.curves[run["path"]]
        evaluations[run["benchmark"]] = evaluations.get(run["benchmark"], 0) + len(curve.points)
    benchmark = max(evaluations, key=lambda b: evaluations[b])
    data.scores = [s for s in data.scores if s["benchmark"] == benchmark]
    data.runs = [r for r in data.runs if r["benchmark"] == benchmark]
    main = tmp_path / "heavy.html"
    build_report([], main, pages="split", data=_heavy(data, benchmark, 8))
    (page,) = (tmp_path / "heavy_pages").glob("*.html")  # the benchmark's detail page
    assert page.stat().st_size > 2e6  # as the published record's detail pages
    tab, errors = _tab(browser, {"width": 1280, "height": 900})
    import time

    start = time.perf_counter()
    tab.goto(page.resolve().as_uri(), wait_until="load")
    tab.wait_for_selector("html[data-ready='1']")
    ready = time.perf_counter() - start
    first = int(tab.evaluate("document.documentElement.getAttribute('data-drawn-first')"))
    drawn_then = tab.evaluate("document.querySelectorAll('circle.pt').length")
    tab.evaluate("document.dispatchEvent(new Event('mllog-draw-all'))")
    tab.wait_for_selector("html[data-drawn='1']")
    drawn = time.perf_counter() - start
    charts = tab.evaluate(CHART_STATS)
    lazy = [c for c in charts if c["kind"] == "curve"]
    assert errors == []
    assert len(lazy) > 20 and first <= 8, (len(lazy), first)
    assert all(c["drawnPoints"] == c["declaredPoints"] for c in charts)
    total = sum(sum(c["drawnPoints"]) for c in lazy)
    assert drawn_then < total / 2, (drawn_then, total)
    assert ready < drawn, (ready, drawn)
    tab.context.close()
