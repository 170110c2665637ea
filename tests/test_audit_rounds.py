"""`audit` over each v2.1-v5.1 round folder of the corpus: no traceback, nothing written
into the tree, the same tables as for older rounds, verdicts equal to `package`'s."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROUNDS = ("v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1")
TABLES = {"runs.csv", "scores.csv", "anomalies.csv", "anomalies.json", "orgs.csv"}


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
    }


@pytest.mark.corpus
@pytest.mark.parametrize("round_name", ROUNDS)
def test_audit_of_a_whole_round(corpus: Path, tmp_path: Path, round_name: str) -> None:
    tree = corpus / round_name
    before = _snapshot(tree)
    cmd = [sys.executable, "-c", "from mllog_check.cli import main; main()", "audit"]
    cmd += [str(tree), "--ruleset", round_name[1:] + ".0", "--out", str(tmp_path / "out")]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert _snapshot(tree) == before  # nothing written, moved or touched
    assert {p.name for p in (tmp_path / "out").iterdir()} >= TABLES
    with (tmp_path / "out/orgs.csv").open() as f:
        orgs = list(csv.DictReader(f))
    assert {o["org"] for o in orgs} == {p.name for p in tree.iterdir() if (p / "results").is_dir()}
    assert all(o["missing_stages"] == "" and o["failure"] == "" for o in orgs)
    # Every published org of these rounds passes the round's official checks here
    # (tests/test_package_rounds.py compares with the official checker itself).
    assert all(o["passed"] == "True" for o in orgs), orgs


@pytest.mark.corpus
def test_llm_anomalies_on_real_logs(corpus: Path, tmp_path: Path) -> None:
    from mllog_check.submission.audit import run_audit

    result = run_audit(corpus / "v5.1", "5.1.0", jobs=1)
    apart = {
        a.path.rsplit("/", 3)[1] + "/" + a.path.rsplit("/", 1)[1]
        for a in result.anomalies
        if a.kind == "runs-far-apart"
    }
    # MI300X llama2_70b_lora: runs 7-9 were taken 51 days after the others.
    assert {f"MI300X_EPYC_9575F_pytorch_llama2_70b/result_{n}.txt" for n in (7, 8, 9)} <= apart
