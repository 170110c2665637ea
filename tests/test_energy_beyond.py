"""Energy beyond joules (docs/power.md, "Beyond joules"): mean power over the timed runs,
energy per accelerator, the node and switch shares, performance per watt; in `score`,
the audit's tables, the energy ranking and the report.

The v5.0 Lenovo bert figures were computed by hand from the published logs (a plain
json read of result_N.txt and power/result_N/node_0.txt, the formula of docs/power.md):
runs ordered by time to train, fastest (result_1, 194.526 s) and slowest (result_4,
234.008 s) dropped, the other eight averaged: 1,949,215.94 J over 214.276 s.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check.cli import cli
from mllog_check.results import compute_scores

LENOVO = Path("v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB")
# By hand (module docstring): the kept runs' mean energy and mean time to train.
BERT_J = 1_949_215.9387540054
BERT_S = 214.276
GOOD = FIXTURES / "power" / "good"


@pytest.mark.corpus
def test_real_bert_result_by_hand(corpus: Path) -> None:
    report = compute_scores([str(corpus / LENOVO / "bert")], ruleset="5.0.0")
    (score,) = report.scores
    assert score.energy_j == pytest.approx(BERT_J, rel=1e-9)
    assert score.avg_power_w == pytest.approx(BERT_J / BERT_S, rel=1e-9)  # 9,096.75 W
    assert score.avg_power_w == pytest.approx(9096.753, abs=1e-3)
    assert score.energy_per_accelerator_j == pytest.approx(BERT_J / 8, rel=1e-9)  # 8 × B200
    assert (score.node_energy_share, score.switch_energy_share) == (1.0, 0.0)  # no sw_K.txt
    # Runs per hour per kW: (3600 / 214.276 s) / 9.0968 kW = 3.6e6 / 1,949,216 J.
    assert score.perf_per_watt == pytest.approx(1.8468964512, rel=1e-9)
    run = next(r for r in report.runs if r.path.endswith("result_0.txt"))
    # result_0 by hand: 2,000,355 J over 220.176 s (its window's mean 9,085.3 W).
    assert run.avg_power_w == pytest.approx(2_000_355 / 220.176, rel=1e-6)


def test_switch_share_is_the_estimate_over_the_mean_power() -> None:
    """The fixture's one switch adds 450 W (conversion_eff 1) over every run, so its
    share of the energy is 450 W over the result's mean power; node and switch add up."""
    (score,) = compute_scores([str(GOOD)], ruleset="1.0.0").scores
    assert score.avg_power_w is not None and score.avg_power_w > 450
    assert score.switch_energy_share == pytest.approx(450.0 / score.avg_power_w, rel=1e-9)
    assert score.node_energy_share + score.switch_energy_share == pytest.approx(1.0)
    assert score.energy_j == pytest.approx(score.avg_power_w * score.minutes * 60, rel=1e-9)


def test_score_json_and_table_show_the_figures() -> None:
    result = CliRunner().invoke(cli, ["score", str(GOOD), "--ruleset", "1.0.0", "--format", "json"])
    document = json.loads(result.stdout)
    (score,) = document["scores"]
    for key in ("avg_power_w", "perf_per_watt"):
        assert score[key] and score[key] > 0, key
    assert score["energy_per_accelerator_j"] is None  # no systems/*.json: no count
    (ranked,) = document["efficiency"]
    assert ranked["avg_power_w"] == score["avg_power_w"]
    assert ranked["switch_share"] == score["switch_energy_share"]
    assert all(run["avg_power_w"] > 0 for run in document["runs"])
    table = CliRunner().invoke(cli, ["score", str(GOOD), "--ruleset", "1.0.0"]).stdout
    assert "avg kW" in table and "switch %" in table and "runs/h/kW" in table
    without = CliRunner().invoke(
        cli,
        ["score", str(FIXTURES / "package" / "clean"), "--ruleset", "1.0.0", "--format", "json"],
    )
    assert "avg_power_w" not in without.stdout  # the shape stays as it was without power


def test_audit_tables_carry_the_figures() -> None:
    from mllog_check.submission.audit import run_audit

    audit = run_audit(FIXTURES / "audit" / "power", "1.0.0", jobs=1)
    for run in audit.runs:
        if run["energy_j"] is not None:
            minutes = run["minutes"]
            assert run["avg_power_w"] == pytest.approx(run["energy_j"] / (minutes * 60))
    (score,) = [s for s in audit.scores if s.get("energy_j")]
    assert score["avg_power_w"] > 0 and score["switch_energy_share"] > 0
    assert score["energy_per_accelerator_j"] == pytest.approx(score["energy_j"] / 8)  # acme-8x


def test_report_ranking_shows_mean_power(tmp_path: Path) -> None:
    from mllog_check.html_report import build_report

    result = build_report([str(GOOD)], tmp_path / "p.html", "1.0.0", jobs=1)
    (bench,) = [b for b in result.page.benchmarks if b.efficiency]
    (row,) = bench.efficiency
    (score,) = compute_scores([str(GOOD)], ruleset="1.0.0").scores
    assert row["avg_kw"] == pytest.approx(score.avg_power_w / 1000)
    assert row["switch_pct"] == pytest.approx(100 * score.switch_energy_share)
    html = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert '<th scope="col">Mean kW</th>' in html and "Runs per hour per kW" in html


def test_package_prints_the_mean_power() -> None:
    result = CliRunner().invoke(
        cli, ["package", str(FIXTURES / "audit" / "power" / "Acme"), "--ruleset", "1.0.0"]
    )
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("energy ")]
    assert line.endswith(" kW over the timed runs") and ", mean " in line
