"""`audit` of a results repository root: every round in it, together."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
from conftest import FIXTURES

from mllog_check.submission.audit import expand_repositories, run_audit


def _repository(tmp_path: Path) -> Path:
    root = tmp_path / "training_results"
    for name in ("v1.1", "v1.0"):
        shutil.copytree(FIXTURES / "audit/clean", root / name)
    # MLPerf Inference: no round of this build
    shutil.copytree(FIXTURES / "audit/clean", root / "inference_results_v1.0")
    (root / "notes").mkdir()  # neither a round nor an org: ignored
    return root


def test_a_repository_root_is_every_round_together(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    rounds, skipped = expand_repositories([root])
    assert rounds == [root / "v1.0", root / "v1.1"]  # in round order
    assert skipped == [str(root / "inference_results_v1.0")]
    result = run_audit(root, jobs=1)
    assert [o["org"] for o in result.orgs] == ["v1.0/Acme", "v1.1/Acme"]
    dups = sorted(a.path for a in result.anomalies if a.name == "duplicate-log")
    assert dups == [f"v1.1/Acme/results/acme-8x/resnet/result_{n}.txt" for n in range(5)]
    # one row per result, rounds apart; the copies rank first
    assert [(r["rank"], r["org"], r["worst"]) for r in result.results] == [
        (1, "v1.1/Acme", "score"),
        (2, "v1.0/Acme", ""),
    ]


def test_cli_on_a_repository_root(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    out = tmp_path / "out"
    cmd = [sys.executable, "-c", "from mllog_check.cli import main; main()", "audit"]
    done = subprocess.run([*cmd, str(root), "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert f"not audited: {root / 'inference_results_v1.0'}" in done.stdout
    assert "   1. v1.1/Acme acme-8x/resnet:" in done.stdout
    results = pd.read_parquet(out / "results.parquet")
    assert list(results["org"]) == ["v1.1/Acme", "v1.0/Acme"]
    assert pd.read_csv(out / "results.csv").shape == results.shape
    assert len(pd.read_json(out / "results.json")) == 2
    assert set(pd.read_csv(out / "anomalies.csv")["impact"]) == {"score"}
