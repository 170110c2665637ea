"""The report as a reader sees it, in headless Chromium (docs/report.md, "First screen"):
the first screen at 1,400 x 900 holds a headline per benchmark and the summary table
without horizontal scroll; no chart repeats a tick label; every result's bar sits at
its score and every round's trend bar at that round's best, both checked against the
oracle's official scores through the chart's own axis; dropped runs stay visible.
Screenshots go to docs/ with MLLOG_WRITE_DOCS=1 (else to a temporary folder).
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, read_oracle
from report_browser import Browser

from mllog_check.html_report import build_report

pytestmark = pytest.mark.corpus
ROUNDS = ("v5.0", "v5.1")
RENAMED = {"ssd": "retinanet", "gnn": "rgat"}

GEOMETRY = """() => Array.from(document.querySelectorAll('figure.chart')).map(f => ({
  id: f.id,
  xlabel: (f.querySelector('svg text.label') || {}).textContent || '',
  xticks: Array.from(f.querySelectorAll('svg text.tick[text-anchor=middle]')).map(
    t => [Number(t.getAttribute('x')), t.textContent]),
  yticks: Array.from(f.querySelectorAll('svg text.tick[text-anchor=end]')).map(
    t => t.textContent),
  rows: Array.from(f.querySelectorAll('svg text.rowlabel')).map(
    t => [Number(t.getAttribute('y')) - 4, t.querySelector('title').textContent]),
  marks: Array.from(f.querySelectorAll('svg line.mean')).map(
    m => [Number(m.getAttribute('x1')), Number(m.getAttribute('y1')) + 10]),
  bars: Array.from(f.querySelectorAll('svg rect.bar')).map(
    r => [Number(r.getAttribute('x')) + Number(r.getAttribute('width')),
          Number(r.getAttribute('y')) + Number(r.getAttribute('height')) / 2]),
  dots: Array.from(f.querySelectorAll('svg g.series')).map(g => Array.from(
    g.querySelectorAll('circle.pt')).map(c => [c.getAttribute('class'),
      Number(c.getAttribute('cx')), Number(c.getAttribute('cy')), Number(c.getAttribute('r'))])),
}))"""


@pytest.fixture(scope="module")
def page(corpus: Path, browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Any:
    html = tmp_path_factory.mktemp("screen") / "report.html"
    build_report([str(corpus / r) for r in ROUNDS], html, jobs=2)
    context = browser.browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.goto(html.resolve().as_uri(), wait_until="load")
    tab.wait_for_selector("html[data-ready='1']")
    tab.evaluate(
        "document.dispatchEvent(new Event('mllog-draw-all'))"
    )  # charts below the first screen too
    tab.wait_for_selector("html[data-drawn='1']")
    yield tab
    context.close()


def _official(oracle: Path) -> dict[tuple[str, str, str, str], float]:
    """(round, org, system folder, benchmark) -> the official score in minutes."""
    return {
        (version, r["org"], r["system"], r["benchmark"]): float(r["official_score_min"])
        for version in ROUNDS
        for r in read_oracle(oracle, f"scores_{version}.csv")
        if r["official_score_min"]
    }


def _number(label: str) -> float:
    return float(label.replace(",", ""))


def _axis(ticks: list[list[Any]], log: bool) -> Any:
    """value -> x, fitted on the chart's own first and last tick."""
    (x0, a), (x1, b) = ticks[0], ticks[-1]
    v0, v1 = _number(a), _number(b)
    if log:
        v0, v1 = math.log10(v0), math.log10(v1)

    def place(value: float) -> float:
        v = math.log10(value) if log else value
        return x0 + (v - v0) * (x1 - x0) / (v1 - v0)

    return place


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go: docs/ when asked (MLLOG_WRITE_DOCS=1 refreshes the docs'
    pictures), else a temporary folder, so that a test run leaves the checkout as it was."""
    if os.environ.get("MLLOG_WRITE_DOCS"):
        return ROOT / "docs"
    return tmp_path_factory.mktemp("shots")


def test_first_screen_holds_the_headlines_and_the_table(
    page: Any, oracle: Path, shots: Path
) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1400  # no horizontal scroll
    scroller = page.evaluate(
        "(() => { const s = document.querySelector('#summary .scroll');"
        " return [s.scrollWidth, s.clientWidth]; })()"
    )
    assert scroller[0] <= scroller[1]
    box = page.locator("ul.headlines").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 900
    # Who submitted what, on what, first: a line per org above the headlines, each
    # with its verdict, systems, accelerators and benchmarks (docs/report.md).
    who = page.locator("ul.who").first.bounding_box()
    assert who is not None and who["y"] + who["height"] <= box["y"]
    orgs = [t.strip() for t in page.locator("ul.orgs li").all_text_contents()]  # folded
    lines = page.locator("ul.who li").all_inner_texts()
    assert len(lines) == len(orgs) > 1
    for line, org in zip(lines, orgs, strict=True):
        assert line.split(":")[0] == org.split(":")[0], (line, org)  # PASS v5.0/Org
        assert re.search(r": \d+ systems? on \S.*; \d+ results?: \w", line), line
    table = page.locator("#summary-table").bounding_box()
    first_row = page.locator("#summary-table tbody tr").first.bounding_box()
    assert table is not None and first_row is not None
    assert first_row["y"] + first_row["height"] <= 900  # the table starts on screen
    # A headline per benchmark: the best official score of either round, renamed.
    best: dict[str, float] = {}
    for (_, _, _, bench), minutes in _official(oracle).items():
        name = RENAMED.get(bench, bench)
        best[name] = min(best.get(name, minutes), minutes)
    shown = {}
    for text in page.locator("ul.headlines li").all_inner_texts():
        name, minutes = re.match(r"(\S+) ([\d.,]+) min", text).groups()  # type: ignore[union-attr]
        shown[name] = _number(minutes)
    assert set(shown) == set(best)
    for name, minutes in best.items():
        assert shown[name] == pytest.approx(minutes, rel=1e-3), name
    page.screenshot(path=str(shots / "report_first_screen.png"))


def test_no_chart_repeats_a_tick_label(page: Any) -> None:
    charts = page.evaluate(GEOMETRY)
    assert charts
    for chart in charts:
        xs = [label for _, label in chart["xticks"]]
        assert len(xs) == len(set(xs)), (chart["id"], xs)
        assert len(chart["yticks"]) == len(set(chart["yticks"])), (chart["id"], chart["yticks"])


def test_every_bar_is_at_the_score(page: Any, oracle: Path) -> None:
    official = _official(oracle)
    checked = 0
    for chart in page.evaluate(GEOMETRY):
        if not chart["id"].startswith("ttt-"):
            continue
        place = _axis(chart["xticks"], "log" in chart["xlabel"])
        bench = chart["id"].removeprefix("ttt-")
        for x, y in chart["marks"]:
            label = min(chart["rows"], key=lambda row: abs(row[0] - y))[1]
            org_label, system = label.split(" · ", 1)
            version, org = org_label.split("/", 1)
            key = (version, org, system, bench)
            assert key in official, key
            assert x == pytest.approx(place(official[key]), abs=1.5), key
            checked += 1
    assert checked == len(official)


def test_trend_bars_are_each_rounds_best(page: Any, oracle: Path, shots: Path) -> None:
    best: dict[tuple[str, str], float] = {}
    for (version, _, _, bench), minutes in _official(oracle).items():
        key = (RENAMED.get(bench, bench), version)
        best[key] = min(best.get(key, minutes), minutes)
    charts = [c for c in page.evaluate(GEOMETRY) if c["id"].startswith("trend-")]
    several = {name for name, _ in best if sum(1 for n, _ in best if n == name) > 1}
    assert {c["id"].removeprefix("trend-").rsplit("-closed", 1)[0] for c in charts} == several
    for chart in charts:
        name = chart["id"].removeprefix("trend-").rsplit("-closed", 1)[0]
        place = _axis(chart["xticks"], False)
        for right, y in chart["bars"]:
            version = min(chart["rows"], key=lambda row: abs(row[0] - y))[1]
            assert right == pytest.approx(place(best[(name, version)]), abs=1.5)
    page.locator("#trends").screenshot(path=str(shots / "report_trends.png"))


def test_dropped_runs_stay_visible(page: Any) -> None:
    seen = 0
    for chart in page.evaluate(GEOMETRY):
        if not chart["id"].startswith("ttt-"):
            continue
        for dots in chart["dots"]:
            for i, (cls, x, _y, r) in enumerate(dots):
                if "dropped" not in cls:
                    continue
                seen += 1
                later = dots[i + 1 :]
                # Nothing kept is drawn over a dropped ring, and the ring is the larger.
                assert not any("kept" in c and abs(cx - x) < r for c, cx, _, _ in later)
                assert all(r > rr for c, _, _, rr in dots if "kept" in c)
    assert seen > 0


def test_tick_labels_tell_every_tick_apart() -> None:
    from mllog_check.html_report.charts import fmt, nice_ticks, tick_labels

    ticks = nice_ticks(22.08, 22.27)
    assert [fmt(t, 3) for t in ticks] == ["22.1", "22.1", "22.2", "22.2"]  # what was drawn
    assert tick_labels(ticks) == ["22.1", "22.15", "22.2", "22.25"]
    assert tick_labels([1.0, 2.0, 5.0]) == ["1", "2", "5"]


def test_curve_tips_composed_in_the_page_read_as_built(
    corpus: Path, browser: Browser, tmp_path: Path
) -> None:
    """The page writes each point's numbers and composes its tip: the same text the
    report's own chart data holds (file, where, value, path:line)."""
    html = tmp_path / "g.html"
    result = build_report([str(corpus / "v1.0" / "Graphcore")], html, jobs=1)
    expected = {
        c.id: sorted(s.full_tip(p) for s in c.series for p in s.points)
        for c in result.page.charts()
        if c.kind == "curve"
    }
    seen = browser.open(html, keep_page=True)
    got = seen.page.evaluate(
        "() => Object.fromEntries(Array.from(document.querySelectorAll('figure.chart-curve'))"
        ".map(f => [f.id, Array.from(f.querySelectorAll('circle.pt')).map("
        "c => c.getAttribute('data-tip')).sort()]))"
    )
    seen.page.context.close()
    assert expected and set(got) == set(expected)
    for chart, tips in expected.items():
        assert sorted(got[chart]) == tips, chart
