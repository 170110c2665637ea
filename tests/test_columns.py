"""One word, one meaning: the three statuses have three column names in every table."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from click.testing import CliRunner
from conftest import FIXTURES, ROOT

from mllog_check.cli import cli
from mllog_check.results import compute_scores, runs_frame, scores_frame
from mllog_check.submission.audit import run_audit, write_outputs

SCORE = FIXTURES / "score" / "olympic"


def _header(text: str) -> list[str]:
    return next(csv.reader(io.StringIO(text)))


def test_score_tables() -> None:
    runner = CliRunner()
    scores = runner.invoke(cli, ["score", str(SCORE), "--ruleset", "1.0.0", "--format", "csv"])
    runs = runner.invoke(
        cli, ["score", str(SCORE), "--ruleset", "1.0.0", "--format", "csv", "--runs"]
    )
    assert "availability" in _header(scores.stdout) and "status" not in _header(scores.stdout)
    assert "run_stop_status" in _header(runs.stdout) and "status" not in _header(runs.stdout)
    doc = json.loads(
        runner.invoke(cli, ["score", str(SCORE), "--ruleset", "1.0.0", "--format", "json"]).stdout
    )
    assert doc["runs"][0]["run_stop_status"] == "success" and "status" not in doc["runs"][0]
    table = runner.invoke(cli, ["score", str(SCORE), "--ruleset", "1.0.0", "--runs"]).stdout
    assert table.split()[:3] == ["path", "minutes", "run_stop_status"]
    report = compute_scores([str(SCORE)], "1.0.0")
    assert "availability" in scores_frame(report).columns
    assert "run_stop_status" in runs_frame(report).columns


def test_audit_tables(tmp_path: Path) -> None:
    write_outputs(run_audit(FIXTURES / "audit" / "clean", "1.0.0", jobs=1), tmp_path)
    runs = _header((tmp_path / "runs.csv").read_text())
    scores = _header((tmp_path / "scores.csv").read_text())
    assert {"submission_status", "run_stop_status"} <= set(runs) and "status" not in runs
    assert "availability" in scores and "status" not in scores
    with open(tmp_path / "runs.csv", newline="") as handle:
        row = next(csv.DictReader(handle))
    assert (row["submission_status"], row["run_stop_status"]) == ("onprem", "success")


def test_docs_name_each_column() -> None:
    for doc in ("scores.md", "audit.md"):
        text = (ROOT / "docs" / doc).read_text()
        for name in ("run_stop_status", "submission_status", "availability"):
            assert f"`{name}`" in text, (doc, name)
