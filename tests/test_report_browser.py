"""The HTML report in a real browser (headless Chromium): a corpus org, a whole corpus
round, and a fixture round full of failures and anomalies. Each page must load with no
console error and no network request, draw every chart with the series and points the
logs hold (counted here from the logs, independently of the report), and not be blank.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import FIXTURES
from report_browser import Browser, Observed, non_blank

from mllog_check.html_report import build_report
from mllog_check.html_report.build import slug
from mllog_check.parsing import parse_file
from mllog_check.rounds import current_benchmark_name

pytestmark = pytest.mark.corpus


def _result_sets(root: Path) -> dict[tuple[str, str, str], list[Path]]:
    """(org, system, benchmark) -> result files, from the published layout."""
    sets: dict[tuple[str, str, str], list[Path]] = {}
    for path in sorted(root.glob("**/results/*/*/result_*.txt")):
        bench, system, org = path.parent.name, path.parent.parent.name, path.parents[3].name
        sets.setdefault((org, system, bench), []).append(path)
    return sets


def _log_counts(path: Path) -> tuple[bool, dict[str | None, int]]:
    """Whether the run is timed, and its numeric evaluations before run_stop per component."""
    records = parse_file(str(path)).records
    keys = [r.key for r in records]
    timed = "run_start" in keys and "run_stop" in keys
    stop = keys.index("run_stop") if "run_stop" in keys else len(records)
    counts: dict[str | None, int] = {}
    for record in records[:stop]:
        if record.key != "eval_accuracy":
            continue
        value = record.value
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for key, item in items:
            if isinstance(item, int | float) and not isinstance(item, bool):
                counts[key] = counts.get(key, 0) + 1
    return timed, counts


def _expected(root: Path) -> dict[str, list[int]]:
    """chart id -> points per series, counted from the logs."""
    sets = _result_sets(root)
    charts: dict[str, list[int]] = {}
    for (org, system, bench), files in sorted(sets.items()):
        logs = [_log_counts(f) for f in files]
        # Sections and charts carry the name the round gives the folder (ssd: retinanet).
        name = current_benchmark_name(files[0].parents[4].name, bench)
        charts.setdefault(slug("ttt", name), []).append(sum(1 for timed, _ in logs if timed))
        components = sorted({c for _, counts in logs for c in counts if c is not None})
        if not any(counts for _, counts in logs):
            continue
        for component in components or [None]:
            charts[slug("conv", org, system, bench, component or "")] = [
                counts.get(component, 0) for _, counts in logs
            ]
    return charts


def _check_page(seen: Observed, expected: dict[str, list[int]]) -> None:
    assert seen.console_errors == []
    assert seen.blocked == []
    assert all(url.startswith("file:") for url in seen.requests), seen.requests
    assert len(seen.requests) == 1  # the page itself: everything else is inline
    drawn = {c["id"]: c for c in seen.charts}
    assert set(expected) <= set(drawn), sorted(set(expected) - set(drawn))
    for chart in seen.charts:
        assert chart["width"] > 100 and chart["height"] > 50, chart["id"]
        assert chart["drawnSeries"] == chart["series"], chart["id"]
        assert chart["drawnPoints"] == chart["declaredPoints"], chart["id"]
        assert sum(chart["drawnPoints"]) == chart["points"], chart["id"]
        if chart["id"] in expected:
            want = expected[chart["id"]]
            assert chart["series"] == len(want), chart["id"]
            assert sorted(chart["drawnPoints"]) == sorted(want), chart["id"]
    assert non_blank(seen.screenshot)


def _report(paths: list[Path], out: Path, **kw: object) -> Path:
    build_report([str(p) for p in paths], out, jobs=2, **kw)  # type: ignore[arg-type]
    return out


def test_org_report_in_browser(corpus: Path, browser: Browser, tmp_path: Path) -> None:
    org = corpus / "v1.0" / "Graphcore"
    html = _report([org], tmp_path / "graphcore.html")
    expected = _expected(org)
    assert any(k.startswith("conv-") for k in expected)
    seen = browser.open(html)
    _check_page(seen, expected)
    dark = browser.open(html, color_scheme="dark")
    _check_page(dark, expected)
    assert dark.screenshot != seen.screenshot  # the dark palette is applied


def test_round_report_in_browser(corpus: Path, browser: Browser, tmp_path: Path) -> None:
    root = corpus / "v2.0"
    html = _report([root], tmp_path / "v2.0.html")
    expected = _expected(root)
    seen = browser.open(html)
    _check_page(seen, expected)
    benchmarks = {current_benchmark_name("v2.0", key[2]) for key in _result_sets(root)}
    assert "retinanet" in benchmarks and "ssd" not in benchmarks  # RetinaNet in ssd/
    assert {c["id"] for c in seen.charts if c["kind"] == "strip"} >= {
        slug("ttt", b) for b in benchmarks
    }
    print(f"v2.0 report: {len(seen.charts)} charts, loaded in {seen.load_seconds:.2f} s")


def test_failures_and_anomalies_in_browser(browser: Browser, tmp_path: Path) -> None:
    from mllog_check.submission.audit import run_audit

    root = FIXTURES / "audit" / "round"
    html = _report([root], tmp_path / "round.html", ruleset="1.0.0")
    seen = browser.open(html, keep_page=True)
    page = seen.page
    _check_page(seen, _expected(root))
    # groups of more than five items start closed: open them to read every line
    page.eval_on_selector_all("#problems details", "els => els.forEach(e => { e.open = true; })")
    text = page.inner_text("#problems")
    audit = run_audit(root, "1.0.0", jobs=1)
    assert audit.anomalies and audit.problems
    for anomaly in audit.anomalies:
        where = anomaly.path + (f":{anomaly.line}" if anomaly.line else "")
        assert where in text, where
        assert page.locator(f"#problems a.code[href='#code-{anomaly.rule}']").count() >= 1
        assert page.locator(f"#code-{anomaly.rule}").count() == 1  # its glossary entry
    for problem in audit.problems:
        assert problem.path in text
    assert page.locator("h3.sev.error").count() == 1
    assert page.locator("#summary-table .badge.fail").count() >= 1
    # Runs that do not count are drawn as crosses, dropped ones hollow.
    assert page.locator("figure.chart-strip .pt.failed").count() >= 1
    assert page.locator("figure.chart-strip .pt.dropped").count() >= 1
    page.context.close()


def test_keyboard_and_sorting(corpus: Path, browser: Browser, tmp_path: Path) -> None:
    html = _report([corpus / "v1.0" / "Graphcore"], tmp_path / "g.html")
    seen = browser.open(html, keep_page=True)
    page = seen.page
    # A focused point shows its tip: run, file and value.
    point = page.locator("figure.chart-strip .pt").first
    point.focus()
    tip = page.locator("#tip")
    assert tip.is_visible()
    assert re.search(r"result_\d+\.txt .*min .*result_\d+\.txt:\d+$", tip.inner_text())
    assert point.get_attribute("aria-label") == tip.inner_text()
    # With a curve focused, the arrow keys step through its evaluations.
    line = page.locator("figure.chart-curve path.line").first
    line.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator("figure.chart-curve .pt.hot").count() == 1
    assert re.search(r":\d+$", tip.inner_text())  # file:line of the evaluation
    # Sorting the summary by score, from the keyboard.
    button = page.locator("#summary-table th button", has_text="Score")
    button.focus()
    page.keyboard.press("Enter")
    cells = page.locator("#summary-table tbody td:nth-child(5)").evaluate_all(
        "cells => cells.map(c => c.dataset.v === '' ? Infinity : Number(c.dataset.v))"
    )
    assert cells == sorted(cells)
    assert button.locator("..").get_attribute("aria-sort") == "ascending"
    page.keyboard.press("Enter")
    cells = page.locator("#summary-table tbody td:nth-child(5)").evaluate_all(
        "cells => cells.map(c => c.dataset.v === '' ? -Infinity : Number(c.dataset.v))"
    )
    assert cells == sorted(cells, reverse=True)
    # Printed: no navigation, no tooltip, every folded group of problems shown.
    page.evaluate("document.querySelector('#problems details').open = false")
    folded = page.locator("#problems details:not([open]) li").first
    assert folded.count() == 1 and not folded.is_visible()
    page.emulate_media(media="print")
    assert page.locator("header nav").is_hidden()
    assert page.locator("#tip").is_hidden()
    assert folded.is_visible()
    page.context.close()
