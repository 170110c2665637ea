"""The whole record, read once (issue 39, item 8): the audit's stdout leads with what a
reader wants, and ``trends`` and ``report`` read an audit's output folder
(``--from-audit``) and give what they give from the logs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.corpus

CLI = [sys.executable, "-c", "from mllog_check.cli import main; main()"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> tuple[Path, str, list[Path]]:
    """An audit of two corpus rounds: one whose results re-publish earlier runs, one
    with a result only anomalies name (no score)."""
    rounds = [corpus / "v0.7", corpus / "v3.1"]
    out = tmp_path_factory.mktemp("audit") / "out"
    done = _run("audit", *map(str, rounds), "--out", str(out), "-j", "2")
    assert done.returncode in (0, 1), done.stderr
    return out, done.stdout, rounds


def test_stdout_leads_with_the_summary_and_the_ranking(
    audited: tuple[Path, str, list[Path]],
) -> None:
    out, text, _ = audited
    lines = text.splitlines()
    orgs = pd.read_csv(out / "orgs.csv")
    assert lines[0].startswith(f"audited {len(orgs)} orgs ("), lines[0]
    assert f"{int((~orgs['passed']).sum())} fail" in lines[0]
    ranked = lines.index("results, ranked (anomalies by severity: score, rules, info):")
    verdicts = [i for i, ln in enumerate(lines) if ln.startswith(("PASS ", "FAIL "))]
    assert verdicts and min(verdicts) > ranked  # the orgs come after the findings


def test_republished_and_unscored_results_do_not_lead(
    audited: tuple[Path, str, list[Path]],
) -> None:
    """Within a severity, results first published here come before re-published ones,
    and scored ones before those with no score (the line says why it has none)."""
    out, text, _ = audited
    results = pd.read_parquet(out / "results.parquet").sort_values("rank")
    assert results["republished"].eq(True).any() and results["minutes"].isna().any()
    for _, group in results[results["worst"] != ""].groupby("worst"):
        again = group["republished"].eq(True).tolist()
        assert again == sorted(again), group[["rank", "org", "system", "republished"]]
        fresh = group[~group["republished"].eq(True)]
        unscored = fresh["minutes"].isna().tolist()
        assert unscored == sorted(unscored), fresh[["rank", "org", "system", "minutes"]]
    shown = [ln for ln in text.splitlines() if ": no score" in ln]
    assert shown and all("no score (" in ln for ln in shown), shown
    marked = [ln for ln in text.splitlines() if "(re-published)" in ln]
    listed = results[results["republished"].eq(True) & results["worst"].isin(["score", "rules"])]
    assert len(marked) == len(listed)
