"""The report's rows add up: a problem in a result's power logs is counted in that
result's row, and an org's errors outside every row are said so (docs/report.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mllog_check.html_report import build_page, collect

pytestmark = pytest.mark.corpus


def _org_with_power(corpus: Path, root: Path) -> Path:
    source = corpus / "v5.0" / "Lenovo"
    system = "SR780aV3-8xB200_SXM_180GB"
    org = root / "v5.0" / "Lenovo"
    shutil.copytree(source / "results" / system / "bert", org / "results" / system / "bert")
    (org / "systems").mkdir()
    shutil.copy(source / "systems" / f"{system}.json", org / "systems")
    return org


def test_power_log_problems_count_in_their_row(corpus: Path, tmp_path: Path) -> None:
    org = _org_with_power(corpus, tmp_path)
    power = org / "results" / "SR780aV3-8xB200_SXM_180GB" / "bert" / "power" / "result_0"
    shutil.copy(power / "node_0.txt", power / "node_5.txt")  # one node: node_0.txt only
    page = build_page(collect([str(org)], "auto", 1))
    errors = [p for p in page.data.problems if p["severity"] == "error"]
    assert errors and all("/power/" in p["path"] for p in errors)
    (row,) = page.sets
    (summary,) = page.data.orgs
    assert not summary["passed"] and summary["errors"] == len(errors)
    assert row.errors == len(errors) and row.verdict == "FAIL"  # not PASS with 0 errors
    assert "errors" not in page.org_notes.get(summary["org"], "")


def test_counts_outside_the_rows_are_explained(corpus: Path, tmp_path: Path) -> None:
    org = _org_with_power(corpus, tmp_path)
    (org / "systems" / "stray.json").write_text("{", encoding="utf-8")
    page = build_page(collect([str(org)], "auto", 1))
    (summary,) = page.data.orgs
    in_rows = sum(s.errors for s in page.sets)
    if summary["errors"] > in_rows:
        note = page.org_notes[summary["org"]]
        assert f"{summary['errors'] - in_rows} errors" in note and "outside the result rows" in note
    else:
        assert summary["warnings"] > sum(s.warnings for s in page.sets)
        assert "warnings outside the result rows" in page.org_notes[summary["org"]]


def test_energy_efficiency_per_benchmark(corpus: Path, oracle: Path, tmp_path: Path) -> None:
    from conftest import read_oracle

    from mllog_check.html_report import build_report

    official = {
        r["benchmark"]: float(r["official_power"])
        for r in read_oracle(oracle, "scores_v5.0.csv")
        if r["official_power"]
    }
    html = tmp_path / "lenovo.html"
    page = build_report([str(corpus / "v5.0" / "Lenovo")], html, jobs=1).page
    ranked = {b.name: b.efficiency for b in page.benchmarks if b.efficiency}
    assert set(ranked) == set(official)
    for name, rows in ranked.items():
        (row,) = rows  # one system with power logs per benchmark in the corpus
        kwh = official[name] / 3.6e6
        assert row["rank"] == 1 and row["kwh"] == pytest.approx(kwh, rel=1e-6)
        assert row["runs_per_mwh"] == pytest.approx(1000 / kwh, rel=1e-6)
        assert row["kwh_per_accelerator"] == pytest.approx(kwh / 8, rel=1e-6)
        assert row["hardware"] == "8 × B200" and row["official"]
    assert html.read_text(encoding="utf-8").count("<h3>Energy efficiency</h3>") == len(official)


def test_headlines_are_the_best_closed_results_that_count(corpus: Path, oracle: Path) -> None:
    """v1.0 Graphcore BERT: the open results (9.39 min) and the closed IPU-POD64 result
    that fails its RCP check (11.08 min) are faster than the headline, which is the
    closed IPU-POD16 result the official summarizer scores 34.49 min."""
    from conftest import read_oracle

    rows = [r for r in read_oracle(oracle, "scores_v1.0.csv") if r["org"] == "Graphcore"]
    best: dict[str, float] = {}
    for r in rows:
        if r["division"] == "closed" and r["rcp_status"] == "Pass":
            minutes = float(r["official_score_min"])
            best[r["benchmark"]] = min(best.get(r["benchmark"], minutes), minutes)
    page = build_page(collect([str(corpus / "v1.0" / "Graphcore")], "auto", 1))
    shown = {h["benchmark"]: h for h in page.headlines}
    assert set(shown) == set(best)
    for name, minutes in best.items():
        assert shown[name]["minutes"] == pytest.approx(minutes, rel=1e-6)
        assert shown[name]["division"] == "closed"
    assert shown["bert"]["hardware"] == "16 × GC200"
