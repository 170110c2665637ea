"""A run whose only evaluation reaching the quality target comes after run_stop: the
official tools count it (their checker judges the target over the whole log, their
summarizer times run_start to run_stop); `check` and `package` warn (MLC111, beyond
them), `score --runs` says why it counts. Built from a real v5.0 rgat log."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mllog_check.rules import check_file
from mllog_check.submission.package import check_package

SYSTEM = "G893-SD1_dgl"
CLI = [sys.executable, "-c", "from mllog_check.cli import main; main()"]


def _org(tmp_path: Path, corpus: Path) -> Path:
    """v5.0 GigaComputing's closed rgat result; in result_3.txt the one evaluation that
    reaches the target (0.7202 >= 0.72, file line 80) moved after run_stop."""
    source = corpus / "v5.0/GigaComputing"
    org = tmp_path / "GigaComputing"
    shutil.copytree(source / "results" / SYSTEM, org / "results" / SYSTEM)
    (org / "systems").mkdir()
    shutil.copy(source / "systems" / f"{SYSTEM}.json", org / "systems")
    log = org / "results" / SYSTEM / "rgat" / "result_3.txt"
    lines = log.read_text().splitlines(keepends=True)
    reaching = [n for n, ln in enumerate(lines) if '"eval_accuracy", "value": 0.72' in ln]
    assert len(reaching) == 1
    moved = lines.pop(reaching[0])
    stop = next(n for n, ln in enumerate(lines) if '"key": "run_stop"' in ln)
    lines.insert(stop + 1, moved)
    log.write_text("".join(lines))
    return org


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, check=False)


@pytest.mark.corpus
def test_check_warns_and_keeps_the_official_pass(corpus: Path, tmp_path: Path) -> None:
    log = _org(tmp_path, corpus) / "results" / SYSTEM / "rgat" / "result_3.txt"
    verdict = check_file(str(log), "5.0.0")
    assert verdict.passed
    late = [p for p in verdict.problems if p.rule == "MLC111"]
    assert len(late) == 1 and late[0].severity == "warning"
    assert late[0].line == 85 and "only after run_stop (line 84)" in late[0].message
    assert not any(p.rule == "MLC040" for p in verdict.problems)  # reached: the official view
    strict = _run("check", str(log), "--ruleset", "5.0.0", "--strict")
    assert strict.returncode == 1 and "MLC111" in strict.stdout
    # the unplanted log: no warning
    original = corpus / "v5.0/GigaComputing/results" / SYSTEM / "rgat" / "result_3.txt"
    assert not [p for p in check_file(str(original), "5.0.0").problems if p.rule == "MLC111"]


@pytest.mark.corpus
def test_package_warns_beyond_the_official_checker(corpus: Path, tmp_path: Path) -> None:
    report = check_package(_org(tmp_path, corpus), "5.0.0")
    late = [p for p in report.problems if p.rule == "MLC111"]
    assert len(late) == 1 and not late[0].is_error
    assert report.passed and report.official_passed and report.beyond == 1
    assert check_package(_org(tmp_path / "b", corpus), "5.0.0", strict=True).passed is False


@pytest.mark.corpus
def test_score_runs_says_why_the_run_counts(corpus: Path, tmp_path: Path) -> None:
    org = _org(tmp_path, corpus)
    table = _run("score", str(org), "--ruleset", "5.0.0", "--runs")
    assert table.returncode == 0, table.stderr
    row = next(ln for ln in table.stdout.splitlines() if "result_3.txt" in ln)
    assert "counted: run_stop says success" in row and "after run_stop" in row
    assert table.stdout.splitlines()[0].rstrip().endswith("note")
    doc = json.loads(_run("score", str(org), "--ruleset", "5.0.0", "--format", "json").stdout)
    notes = {Path(r["path"]).name: r["note"] for r in doc["runs"]}
    assert notes["result_3.txt"].startswith("counted:") and notes["result_0.txt"] == ""
    scores = doc["scores"]
    assert len(scores) == 1 and scores[0]["runs_counted"] == 10  # as the official summarizer
