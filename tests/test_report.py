"""The HTML report's content (without a browser): dropped runs, energy, costs, PNGs, CLI."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check.cli import cli
from mllog_check.html_report import build_page, build_report, collect

ROUND = FIXTURES / "audit" / "round"


def _kept_means(paths: list[Path], ruleset: str = "auto") -> list[tuple[float, float]]:
    page = build_page(collect([str(p) for p in paths], ruleset, jobs=2))
    pairs = []
    for view in page.sets:
        raw = view.score.get("raw_minutes")
        if not view.score.get("valid") or raw is None:
            continue
        kept = [r["minutes"] for r in view.runs if r["state"] == "kept"]
        pairs.append((statistics.fmean(kept), raw))
    return pairs


@pytest.mark.corpus
def test_dropped_runs_are_the_olympic_means(corpus: Path) -> None:
    """The runs the page shows as kept average to the score: the marking is the scorer's."""
    # v0.6 counts runs by an approximation of compliance (the scores stage's).
    pairs = _kept_means([corpus / "v2.0", corpus / "v1.0" / "Graphcore", corpus / "v0.6"])
    assert len(pairs) >= 35
    for kept, score in pairs:
        assert kept == pytest.approx(score, rel=1e-9)


def test_dropped_runs_fixture() -> None:
    pairs = _kept_means([ROUND], "1.0.0")
    assert pairs
    for kept, score in pairs:
        assert kept == pytest.approx(score, rel=1e-9)


def test_page_is_self_contained(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "round.html"
    build_report([str(ROUND)], out, "1.0.0", jobs=1)
    html = out.read_text(encoding="utf-8")
    assert "<link" not in html and "@import" not in html and "url(" not in html
    assert not re.search(r"<script[^>]+src=", html)
    references = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert references and all("://" not in r and not r.startswith("//") for r in references)
    # Links to the logs are relative to the page's folder.
    assert '<a class="loc" href="../../' in html or '<a class="loc" href="..' in html
    assert "prefers-color-scheme: dark" in html and "@media print" in html


def test_energy_from_power_logs(tmp_path: Path) -> None:
    from mllog_check.power import check_benchmark_folder, kwh, olympic_energy

    folder = FIXTURES / "power" / "good"
    result = build_report([str(folder)], tmp_path / "p.html", "1.0.0", jobs=1)
    (view,) = result.page.sets
    expected = check_benchmark_folder(str(folder / "resnet"))
    energies = [e.joules for e in expected.energies.values() if e.joules is not None]
    assert view.energy_runs == len(energies) > 0
    # The energy score: the olympic mean by time to train (resnet: drop 1 each end).
    by_name = {Path(path).name: e.joules for path, e in expected.energies.items()}
    minutes = [r["minutes"] for r in view.runs]
    joules = [by_name[Path(r["path"]).name] for r in view.runs]
    score = olympic_energy(joules, minutes, 1)
    assert view.energy_kwh == pytest.approx(kwh(score))
    assert view.energy_kwh != pytest.approx(statistics.fmean(kwh(j) or 0 for j in energies))
    charts = [c for c in result.page.charts() if c.id.startswith("energy-")]
    assert len(charts) == 1 and charts[0].point_count == len(energies)
    assert "no power logs" not in (tmp_path / "p.html").read_text(encoding="utf-8")


@pytest.mark.corpus
def test_costs_keep_the_honesty_notes(corpus: Path, tmp_path: Path) -> None:
    from mllog_check.cost import NOTE

    out = tmp_path / "c.html"
    prices = str(FIXTURES / "prices" / "sample.csv")
    result = build_report([str(corpus / "v1.0")], out, prices=[prices], jobs=2)
    html = out.read_text(encoding="utf-8")
    assert NOTE in html
    assert "source: Graphcore MLPerf Training v1.0 announcement" in html
    # Divisions are never compared with each other: a section each.
    titles = [s["title"] for s in result.page.cost]
    assert titles == ["closed division, round 1.0.0", "open division, round 1.0.0"]
    closed = result.page.cost[0]
    assert {r.system for r in closed["rows"]} >= {"ipu-pod16-TF1", "dgxa100_ngc21.05_mxnet"}
    assert {r.division for r in closed["rows"]} == {"closed"}
    assert any("Not priced by the catalogs" in n for n in result.page.cost_notes)
    assert all(c.point_count for s in result.page.cost for c in s["charts"])


def test_png_plots(tmp_path: Path) -> None:
    result = build_report(
        [str(ROUND)], tmp_path / "r.html", "1.0.0", plots=tmp_path / "png", jobs=1
    )
    charts = result.page.charts()
    assert len(result.plots) == len(charts) > 1
    for path in result.plots:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    out = str(tmp_path / "r.html")
    failing = runner.invoke(cli, ["report", str(ROUND), "--ruleset", "1.0.0", "--out", out])
    assert failing.exit_code == 1, failing.output
    assert "charts" in failing.output
    clean = FIXTURES / "audit" / "clean"
    ok = runner.invoke(cli, ["report", str(clean), "--ruleset", "1.0.0", "--out", out])
    assert ok.exit_code == 0, ok.output
    nothing = runner.invoke(cli, ["report", str(tmp_path / "missing"), "--out", out])
    assert nothing.exit_code == 2
    unknown = runner.invoke(cli, ["report", str(ROUND), "--out", out])  # no round in its name
    assert unknown.exit_code == 2 and "--ruleset" in unknown.output


@pytest.mark.corpus
def test_reference_band_is_the_rcp_checks(corpus: Path) -> None:
    """The minimum line drawn on a closed result's curves is the one its RCP verdict names."""
    page = build_page(collect([str(corpus / "v1.0" / "Graphcore"), str(corpus / "v2.0")]))
    compared = 0
    for view in page.sets:
        message = view.score.get("rcp_message") or ""
        found = re.search(r"minimum ([\d,.]+)", message)
        if not found or not view.curves or not view.curves[0].vlines:
            continue
        minimum = float(found.group(1).replace(",", ""))
        drawn = view.curves[0].vlines[0][0]
        assert drawn == pytest.approx(minimum, rel=1e-3, abs=0.01), view.key
        compared += 1
    assert compared >= 5


@pytest.mark.corpus
def test_round_rows_are_the_audits(corpus: Path) -> None:
    """The report checks the orgs itself (one pool with the curves): the same rows."""
    from mllog_check.html_report.collect import PROBLEM_ROW
    from mllog_check.submission.audit import run_audit
    from mllog_check.submission.package import ANOMALY_COLUMNS

    root = corpus / "v2.0"
    data = collect([str(root)], jobs=2)
    audit = run_audit(root, None, jobs=2)
    assert data.orgs == audit.orgs
    assert data.runs == audit.runs
    assert sorted(data.scores, key=str) == sorted(audit.scores, key=str)
    assert data.anomalies == sorted(
        (a.row(ANOMALY_COLUMNS) for a in audit.anomalies),
        key=lambda a: (a["path"], a["line"], a["kind"]),
    )
    problems = [p.row(PROBLEM_ROW) for p in audit.problems]
    assert sorted(data.problems, key=str) == sorted(problems, key=str)
    assert set(data.curves) == {r["path"] for r in data.runs}


@pytest.mark.corpus
def test_energy_scores_are_the_summarizers(corpus: Path, oracle: Path) -> None:
    """v5.0 Lenovo's power logs: the energy column equals the official summarizer's."""
    from conftest import read_oracle

    official = {
        (r["org"], r["system"], r["benchmark"]): float(r["official_power"])
        for r in read_oracle(oracle, "scores_v5.0.csv")
        if r["official_power"] and r["official_power_unit"] == "J"
    }
    page = build_page(collect([str(corpus / "v5.0" / "Lenovo")], "5.0.0", jobs=2))
    compared = 0
    for view in page.sets:
        if view.key in official:
            assert view.energy_kwh is not None, view.key
            assert view.energy_kwh * 3.6e6 == pytest.approx(official[view.key], rel=1e-6)
            compared += 1
        else:
            assert view.energy_kwh is None, view.key
    assert compared >= 4


@pytest.mark.corpus
def test_two_rounds_stay_apart(corpus: Path, tmp_path: Path) -> None:
    """One org in two rounds: two rows, each with its own round's runs."""
    result = build_report(
        [str(corpus / "v1.1"), str(corpus / "v2.0")], tmp_path / "two.html", jobs=2
    )
    page = result.page
    assert page.data.rulesets == ["1.1.0", "2.0.0"]
    orgs = {view.org for view in page.sets}
    assert {"v1.1/Google", "v2.0/Google"} <= orgs
    for view in page.sets:
        assert view.runs and all(r["path"].startswith(view.org + "/") for r in view.runs)
        assert view.score.get("ruleset") == ("1.1.0" if view.org.startswith("v1.1") else "2.0.0")
    assert sum(len(v.runs) for v in page.sets) == len(page.data.runs)


def test_same_page_every_run(tmp_path: Path) -> None:
    pages = []
    for name, jobs in (("a.html", 1), ("b.html", 2)):
        build_report([str(ROUND)], tmp_path / name, "1.0.0", jobs=jobs)
        pages.append((tmp_path / name).read_bytes())
    assert pages[0] == pages[1]
