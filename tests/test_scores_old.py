"""v0.5 and MLPerf HPC v0.7 scores over the real corpus, recomputed from the raw logs.

Neither round has official compliance rules nor an official scores oracle (oracle/ has
no v0.5 or hpc-v0.7 scores): the expected olympic means come from a small regex over
the run_start/run_stop lines (no mllog_check parser, no scoring data), fastest and
slowest dropped. Some logs of both rounds state no run_stop status (v0.5 NVIDIA, HPC
v0.7 Fujitsu CosmoFlow): their runs count when an evaluation reaches the target.
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


def _states_status(path: Path) -> bool:
    """run_stop states how the run ended: metadata status (MLLOG) or a value (v0.5)."""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if re.search(r"\brun_stop\b", line) and ("status" in line or "success" in line):
            return True
    return False


def test_v05_results_are_scored_from_their_run_start_and_run_stop(corpus: Path) -> None:
    report = compute_scores([str(corpus / "v0.5")])
    files = sorted((corpus / "v0.5").rglob("result_*.txt"))
    folders = sorted({p.parent for p in files})
    assert len(report.scores) == len(folders)
    by_folder = {Path(s.folder): s for s in report.scores}
    for folder in folders:
        score = by_folder[folder]
        assert score.ruleset == "0.5.0" and score.valid, (folder, score.reason)
        assert score.minutes == pytest.approx(_olympic(folder, _MLP, 60.0), abs=1e-6), folder
        assert "no official compliance rules exist for v0.5" in score.reason
    assert len(report.runs) == len(files)
    assert all(run.converged and run.counted for run in report.runs)
    # run_stop_status as logged: success (Google's {"success": "true"}) or none at all
    # (NVIDIA), whose runs count by their evaluations and say so in their note
    stated = {str(p): _states_status(p) for p in files}
    assert {stated[r.path] for r in report.runs} == {True, False}  # both kinds are here
    for run in report.runs:
        assert run.run_stop_status == ("success" if stated[run.path] else None), run.path
        assert ("states no status" in run.note) == (not stated[run.path]), run.path
    said = [p for p in report.problems if p.rule == "MLR067"]
    assert len(said) == len(folders) and not [p for p in report.problems if p.is_error]


def test_hpc_v07_strong_results_are_scored_as_the_summarizer_does(corpus: Path) -> None:
    report = compute_scores([str(corpus / "hpc-v0.7")])
    files = sorted((corpus / "hpc-v0.7").rglob("result_*.txt"))
    folders = sorted({p.parent for p in files})
    assert sorted(Path(s.folder) for s in report.scores) == folders
    for score in report.scores:
        folder = Path(score.folder)
        assert score.ruleset == "hpc-0.7.0" and score.valid, (folder, score.reason)
        assert score.runs_counted == score.runs_total == len(list(folder.glob("result_*")))
        assert score.minutes == pytest.approx(_olympic(folder, _MLLOG, 60_000.0), abs=1e-6)
        assert "no official compliance rules exist for MLPerf HPC v0.7" in score.reason
    assert [p.rule for p in report.problems] == ["MLR067"] * len(folders)
    # Fujitsu's CosmoFlow logs state no run_stop status, yet count (their evaluations)
    assert {_states_status(p) for p in files} == {True, False}


_V05_NVIDIA = ("v0.5", "v0.5.0", "nvidia", "submission", "results")


def _planted(corpus: Path, tmp_path: Path, parts: tuple[str, ...]) -> Path:
    """A copy of a corpus folder (and the folders above it, named as in the corpus)."""
    import shutil

    copy = tmp_path.joinpath(*parts)
    shutil.copytree(corpus.joinpath(*parts), copy)
    return copy


def test_bare_run_stop_counts_only_when_the_target_is_reached(corpus: Path, tmp_path: Path) -> None:
    """v0.5 NVIDIA logs state no run_stop status: a run whose evaluations stay below the
    target (planted: every accuracy read 0.5) is not counted, and says why."""
    results = _planted(corpus, tmp_path, _V05_NVIDIA)
    log = sorted(results.rglob("result_*.txt"))[0]
    text = log.read_text(encoding="utf-8")
    lowered = re.sub(r'(eval_accuracy: \{"value": )[0-9.]+', r"\g<1>0.5", text)
    assert lowered != text
    log.write_text(lowered, encoding="utf-8")
    report = compute_scores([str(tmp_path / "v0.5")])
    (score,) = report.scores
    runs = {Path(r.path): r for r in report.runs}
    assert not runs[log].counted and runs[log].reached_for_status is False
    assert all(r.counted for p, r in runs.items() if p != log)
    assert score.valid and score.runs_counted == score.runs_total - 1  # one failure allowed
    (why,) = [p for p in report.problems if p.rule == "MLR041"]
    assert Path(why.path) == log and "states no status" in why.message


def test_bare_run_stop_is_no_success_where_the_round_logs_a_status(
    corpus: Path, tmp_path: Path
) -> None:
    """The rule is the round's data (scoring ``unlogged_status``), not a reading of every
    bare run_stop: an HPC v1.0 log whose status is taken out does not count."""
    from mllog_check.results.scoring import scoring_for

    assert scoring_for("hpc-1.0.0").benchmarks["cosmoflow"].status_from_target is False
    assert scoring_for("hpc-0.7.0").benchmarks["cosmoflow"].status_from_target is True
    folder = next(p.parent for p in sorted((corpus / "hpc-v1.0").rglob("strong/*/result_*.txt")))
    parts = folder.relative_to(corpus).parts
    copy = _planted(corpus, tmp_path, parts)
    log = sorted(copy.glob("result_*.txt"))[0]
    text = log.read_text(encoding="utf-8")
    bare = re.sub(r'(run_stop".*), "status": "success"', r"\1", text)
    assert bare != text
    log.write_text(bare, encoding="utf-8")
    report = compute_scores([str(copy)])
    (run,) = [r for r in report.runs if Path(r.path) == log]
    assert run.run_stop_status is None and not run.counted and run.reached_for_status is None


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


def test_v05_is_audited_in_a_repository_root(corpus: Path, tmp_path: Path) -> None:
    """A results repository root holding v0.5 (``v0.5.0/<org>/<submission>/results/``)
    audits each v0.5 submission folder as an org, named as ``score`` names it, and the
    report reads the same orgs. NVIDIA's bare run_stop is no anomaly where the target is
    met; planted below the target in one log, MLA008 says what is missing."""
    from mllog_check.html_report.collect import collect
    from mllog_check.submission.audit import run_audit

    root = tmp_path / "results"
    _planted(corpus, root, ("v0.5",))
    _planted(corpus, root, ("hpc-v0.7", "NCSA"))
    log = sorted((root.joinpath(*_V05_NVIDIA)).rglob("result_*.txt"))[0]
    text = log.read_text(encoding="utf-8")
    log.write_text(re.sub(r'(eval_accuracy: \{"value": )[0-9.]+', r"\g<1>0.5", text), "utf-8")
    result = run_audit(root, jobs=1)
    v05 = root / "v0.5"
    submissions = {p.parent.name for p in v05.rglob("results") if p.is_dir()}
    assert {o["org"] for o in result.orgs} == {f"v0.5/{s}" for s in submissions} | {"hpc-v0.7/NCSA"}
    assert not [a for a in result.anomalies if a.rule == "MLA021"]  # nothing left unread
    scores = [s for s in result.scores if s["org"].startswith("v0.5/")]
    assert len(scores) == len({p.parent for p in v05.rglob("result_*.txt")})
    assert all(s["valid"] for s in scores)
    assert all(s["division"] is None and s["accelerators"] is None for s in scores)
    (said,) = [a for a in result.anomalies if a.rule == "MLA008"]
    assert said.path.endswith(str(log.relative_to(root))) and "states no status" in said.message
    shown = collect([str(root)], jobs=1)
    assert {s["org"] for s in shown.scores} == {s["org"] for s in result.scores}


def test_the_report_names_v05_submissions_as_the_audit_does(corpus: Path, tmp_path: Path) -> None:
    from conftest import has_module, require

    require(has_module("jinja2"), "jinja2 not installed (report extra)")
    from mllog_check.html_report import build_report
    from mllog_check.submission.audit import run_audit

    root = tmp_path / "results"
    _planted(corpus, root, ("v0.5",))
    _planted(corpus, root, ("hpc-v0.7", "NCSA"))
    page = build_report([str(root)], tmp_path / "r.html", jobs=1).page
    assert {s.org for s in page.sets} == {s["org"] for s in run_audit(root, jobs=1).scores}
