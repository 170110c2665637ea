"""v0.5 and MLPerf HPC v0.7 scores over the real corpus, recomputed from the raw logs.

Neither round has official compliance rules nor an official scores oracle (oracle/ has
no v0.5 or hpc-v0.7 scores): the expected olympic means come from a small regex over
the run_start/run_stop lines (no mllog_check parser, no scoring data), fastest and
slowest dropped; every run of both corpora reports success.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

from mllog_check.results import compute_scores
from mllog_check.submission.package import check_package

pytestmark = pytest.mark.corpus

# v0.5: ":::MLPv0.5.0 <bench> <seconds> (<file>:<line>) run_start"; seconds.
_MLP = re.compile(
    r":::MLPv0\.5\.0 \S+ (?P<t>\d+(?:\.\d+)?) \([^)]*\) (?P<key>run_start|run_stop)\b"
)
# MLLOG: milliseconds.
_MLLOG = re.compile(r'"time_ms": (?P<t>\d+(?:\.\d+)?), [^}]*"key": "(?P<key>run_start|run_stop)"')


def _minutes(path: Path, pattern: re.Pattern[str], per_minute: float) -> float:
    seen: dict[str, float] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = pattern.search(line)
        if match is not None:
            seen.setdefault(match["key"], float(match["t"]))
    return (seen["run_stop"] - seen["run_start"]) / per_minute


def _olympic(folder: Path, pattern: re.Pattern[str], per_minute: float) -> float:
    times = sorted(_minutes(p, pattern, per_minute) for p in folder.glob("result_*.txt"))
    return statistics.fmean(times[1:-1])


def test_v05_results_are_scored_from_their_run_start_and_run_stop(corpus: Path) -> None:
    report = compute_scores([str(corpus / "v0.5")])
    folders = sorted({p.parent for p in (corpus / "v0.5").rglob("result_*.txt")})
    assert len(report.scores) == len(folders) == 12
    by_folder = {Path(s.folder): s for s in report.scores}
    for folder in folders:
        score = by_folder[folder]
        assert score.ruleset == "0.5.0" and score.valid, (folder, score.reason)
        assert score.minutes == pytest.approx(_olympic(folder, _MLP, 60.0), abs=1e-6), folder
        assert "no official compliance rules exist for v0.5" in score.reason
    assert all(run.converged and run.run_stop_status == "success" for run in report.runs)
    assert len(report.runs) == 75
    said = [p for p in report.problems if p.rule == "MLR067"]
    assert len(said) == 12 and not [p for p in report.problems if p.is_error]


def test_hpc_v07_strong_results_are_scored_as_the_summarizer_does(corpus: Path) -> None:
    report = compute_scores([str(corpus / "hpc-v0.7")])
    (score,) = report.scores
    folder = Path(score.folder)
    assert (score.org, score.benchmark, score.ruleset) == ("NCSA", "cosmoflow", "hpc-0.7.0")
    assert score.valid and score.runs_counted == 10
    assert score.minutes == pytest.approx(_olympic(folder, _MLLOG, 60_000.0), abs=1e-6)
    assert "no official compliance rules exist for MLPerf HPC v0.7" in score.reason
    assert [p.rule for p in report.problems] == ["MLR067"]


def test_hpc_v07_orgs_are_not_failed_for_rules_that_do_not_exist(corpus: Path) -> None:
    report = check_package(corpus / "hpc-v0.7" / "NCSA", audit=True)
    assert report.passed and report.official_passed
    assert report.not_checked.startswith("compliance: round hpc-0.7.0 has no official")
    assert {p.rule for p in report.problems} == {"MLR067"}
    (row,) = report.scores
    assert row["valid"] and row["minutes"] == pytest.approx(265.59, abs=0.01)
    assert {run["compliance"] for run in report.runs} == {""}  # not run: no rules


def test_v05_submissions_audit_clean_with_what_is_not_checked_said(corpus: Path) -> None:
    """v0.5 submissions (their system in results/<system>/entry.json, their outcome in
    run_stop's value) pass: no missing description, no run said not to converge."""
    from mllog_check.submission.audit import run_audit

    result = run_audit(corpus / "v0.5" / "v0.5.0" / "google" / "cloud_v3.8", jobs=1)
    assert [(o["org"], o["passed"]) for o in result.orgs] == [
        ("gnmt-tpuv3-8", True), ("resnet-tpuv3-8", True), ("ssd-tpuv3-8", True)
    ]  # fmt: skip
    assert result.anomalies == []
    assert {r["run_stop_status"] for r in result.runs} == {"success"}
