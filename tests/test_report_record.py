"""The report over several rounds and over a results repository root, in headless
Chromium (docs/report.md): headlines and sections group by the benchmark a round means
(RetinaNet published in ``ssd/`` is ``retinanet``), and a repository root is read as
its rounds, as ``audit`` reads it (ranked table, anomalies, compliance)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from report_browser import Browser

from mllog_check.html_report import build_report, collect

pytestmark = pytest.mark.corpus


def _open(browser: Browser, html: Path) -> Any:
    seen = browser.open(html, keep_page=True)
    assert seen.console_errors == [] and seen.blocked == []
    return seen.page


def _rows(page: Any, chart: str) -> list[str]:
    script = (
        f"Array.from(document.querySelectorAll('#{chart} svg text.rowlabel'))"
        ".map(t => t.querySelector('title').textContent)"
    )
    return list(page.evaluate(script))


def test_headlines_and_sections_follow_the_benchmark_a_round_means(
    corpus: Path, browser: Browser, tmp_path: Path
) -> None:
    # v0.6 ssd/ is SSD-ResNet34; v4.1 ssd/ is RetinaNet (GigaComputing, 33.92 min).
    html = tmp_path / "r.html"
    build_report([str(corpus / "v0.6"), str(corpus / "v4.1")], html, jobs=2)
    page = _open(browser, html)
    headlines = {}
    for text in page.locator("ul.headlines li").all_inner_texts():
        name, minutes = re.match(r"(\S+) ([\d.,]+) min", text).groups()  # type: ignore[union-attr]
        headlines[name] = (float(minutes), text)
    assert headlines["retinanet"][0] == pytest.approx(33.92, abs=0.01)
    assert "GigaComputing" in headlines["retinanet"][1]
    assert headlines["ssd"][0] == pytest.approx(1.21, abs=0.01)  # v0.6 Google tpu-v3-2048
    ssd, retinanet = _rows(page, "ttt-ssd"), _rows(page, "ttt-retinanet")
    assert ssd and all(r.startswith("v0.6/") for r in ssd), ssd
    assert retinanet == ["v4.1/GigaComputing · G593-ZD1_pytorch"]
    nav = page.locator("header nav").inner_text()
    assert "retinanet" in nav and "ssd" in nav
    rows = page.locator("#summary-table tbody tr").all_inner_texts()
    renamed = [r for r in rows if "(ssd)" in r]
    assert len(renamed) == 1 and "v4.1/GigaComputing" in renamed[0]
    assert "retinanet (ssd)" in renamed[0]
    assert all("retinanet" not in r for r in rows if r.startswith("v0.6/"))
    page.context.close()


@pytest.fixture(scope="module")
def repository(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results repository root: two corpus rounds, and a folder of no round of this
    build (MLPerf Inference)."""
    root = tmp_path_factory.mktemp("repo") / "training_results"
    for name in ("v2.0", "v4.1"):
        shutil.copytree(corpus / name, root / name)
    shutil.copytree(FIXTURES / "audit/clean", root / "inference_results_v4.0")
    return root


def test_a_repository_root_is_read_as_its_rounds(
    repository: Path, browser: Browser, tmp_path: Path
) -> None:
    whole = collect([str(repository)], jobs=2)
    named = collect([str(repository / "v2.0"), str(repository / "v4.1")], jobs=2)
    assert [o["org"] for o in whole.orgs] == [o["org"] for o in named.orgs]
    assert {o["org"].split("/")[0] for o in whole.orgs} == {"v2.0", "v4.1"}
    assert len(whole.problems) == len(named.problems) > 0
    assert len(whole.anomalies) == len(named.anomalies) > 0
    assert whole.skipped == ["inference_results_v4.0"]
    html = tmp_path / "root.html"
    build_report([str(repository)], html, jobs=2)
    page = _open(browser, html)
    orgs = [t.strip() for t in page.locator("ul.orgs li").all_text_contents()]  # folded
    assert len(orgs) == len(named.orgs) and all(re.match(r"(PASS|FAIL) v\d", o) for o in orgs)
    assert page.locator("#ranked-h").count() == 1  # the audit's ranked results
    anomalies = page.locator("#problems summary", has_text="(anomalies)").count()
    assert anomalies > 0
    assert "inference_results_v4.0" in page.locator("#skipped").inner_text()
    page.context.close()
