"""The audit: every anomaly kind on hand-made fixtures, outputs, and the v1.0 corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import FIXTURES, read_oracle

from mllog_check.submission import codes
from mllog_check.submission.audit import (
    AuditError,
    AuditResult,
    check_output_dir,
    run_audit,
    write_outputs,
)

ROUND = FIXTURES / "audit/round"

# One hand-made anomaly of each kind (fixtures/package/build.py writes them).
EXPECTED = {
    ("lines-after-run-stop", "Acme/results/acme-8x/resnet/result_0.txt"),
    ("time-zero", "Acme/results/acme-8x/resnet/result_1.txt"),
    ("time-ms-zero", "Acme/results/acme-8x/resnet/result_1.txt"),
    ("time-constant", "Acme/results/acme-8x/resnet/result_2.txt"),
    ("time-backwards", "Acme/results/acme-8x/resnet/result_3.txt"),
    ("not-converged", "Acme/results/acme-8x/resnet/result_4.txt"),
    ("aborted-run", "Acme/results/acme-16x/resnet/result_0.txt"),
    ("repeated-seed", "Acme/results/acme-16x/resnet/result_2.txt"),
    ("published-but-failing", "Acme/results/acme-16x/resnet/result_4.txt"),
    ("duplicate-log", "Beta/results/beta-1/resnet/result_0.txt"),
    ("org-mismatch", "Beta/results/beta-1/resnet/result_0.txt"),
    ("stray-file", "Acme/systems/.acme-16x.json.swp"),
    ("shared-run-window", "Acme/results/acme-8x/resnet/result_0.txt"),
}
# What the plants above bring with them: the aborted and the truncated run fail the
# package check (the folder then has 2 failing runs), Beta's log is a copy of an Acme run
# (so acme-16x declares two platforms), and it names Acme against Beta's folder and, a
# second finding, against Beta's system description.
CONSEQUENCES = [
    ("published-but-failing", "Acme/results/acme-16x/resnet"),
    ("published-but-failing", "Acme/results/acme-16x/resnet/result_0.txt"),
    ("declared-mismatch", "Acme/results/acme-16x/resnet/result_3.txt"),
    ("org-mismatch", "Beta/results/beta-1/resnet/result_0.txt"),
    # The fixture's result sets are written from one template, so runs of different
    # results share their timed window (MLA018): Acme's acme-8x and Beta's beta-1.
    *(
        ("shared-run-window", f"{folder}/result_{n}.txt")
        for folder, runs in (
            ("Acme/results/acme-8x/resnet", (1, 4)),
            ("Beta/results/beta-1/resnet", (0, 1, 2, 3, 4)),
        )
        for n in runs
    ),
]
ORG_MISMATCHES = ["org folder says 'Beta'", "Beta/systems/beta-1.json (submitter) says 'Beta'"]
# The line of each finding that points into a log (the others are about a whole file).
LINES = {
    ("lines-after-run-stop", "result_0.txt"): 30,
    ("time-ms-zero", "result_1.txt"): 30,
    ("time-zero", "result_1.txt"): 15,
    ("time-constant", "result_2.txt"): 8,
    ("time-backwards", "result_3.txt"): 16,
    ("not-converged", "result_4.txt"): 29,
    ("aborted-run", "result_0.txt"): 14,
    ("repeated-seed", "result_2.txt"): 9,
    ("published-but-failing", "result_4.txt"): 29,
    ("org-mismatch", "result_0.txt"): 3,
    ("declared-mismatch", "result_3.txt"): 6,
}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from mllog_check.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)


def test_every_kind_is_found_once_where_planted() -> None:
    result = run_audit(ROUND, "1.0.0", jobs=1)
    # Exactly the plants and their consequences: a duplicate or an extra finding fails.
    assert sorted((a.name, a.path) for a in result.anomalies) == sorted([*EXPECTED, *CONSEQUENCES])
    orgs = [a.message for a in result.anomalies if a.name == "org-mismatch"]
    assert sorted(m.rsplit("; ", 1)[1] for m in orgs) == sorted(ORG_MISMATCHES)
    lines = {(a.name, a.path.rsplit("/", 1)[1]): a.line for a in result.anomalies if a.line}
    assert lines == LINES
    # The package warnings' own kinds are planted in the package fixtures (catalog).
    elsewhere = {"declared-mismatch", "system-description-format", "unchecked-result"}
    elsewhere |= {"target-not-reached", "batch-size-differs", "runs-far-apart"}  # audit/sets
    # Copies of real logs, edited (tests/test_audit_duplicates.py)
    elsewhere |= {"shared-eval-curve", "duplicate-run-counted", "same-eval-curve"}
    # A folder of the round that is no org (tests/test_hostile.py)
    elsewhere |= {"not-audited"}
    # Org folders named alike (tests/test_hostile_outputs.py)
    elsewhere |= {"org-lookalike"}
    # Across two rounds (tests/test_audit_preview.py on corpus logs).
    elsewhere |= {"preview-not-available"}
    # Results-stage checks gathered as kinds: their codes' examples (tests/test_catalog.py)
    # and real logs (tests/test_hparams.py, tests/test_eval_cadence.py).
    elsewhere |= {"eval-cadence-break", "hparams-differ"}
    # Power kinds are planted in fixtures/audit/power (tests/test_power.py).
    elsewhere |= {k for k in codes.ANOMALY_KINDS if k.startswith("power-")}
    assert {kind for kind, _ in EXPECTED} == set(codes.ANOMALY_KINDS) - elsewhere


def test_clean_round_has_no_anomaly(tmp_path: Path) -> None:
    result = run_audit(FIXTURES / "audit/clean", "1.0.0", jobs=1)
    assert result.anomalies == [] and result.clean
    assert len(result.runs) == 5 and [o["passed"] for o in result.orgs] == [True]


def test_parallel_and_serial_agree() -> None:
    one = run_audit(ROUND, "1.0.0", jobs=1)
    two = run_audit(ROUND, "1.0.0", jobs=2)
    assert one.anomalies == two.anomalies and one.runs == two.runs and one.orgs == two.orgs


def test_outputs_load_with_pandas(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_cli("audit", str(ROUND), "--ruleset", "1.0.0", "--out", str(out), "--jobs", "2")
    assert done.returncode == 1, done.stderr  # anomalies found
    assert "Traceback" not in done.stderr and done.stderr == ""  # not a TTY: no progress bar
    anomalies = pd.read_csv(out / "anomalies.csv")
    assert list(anomalies.columns)[:7] == [
        "org",
        "system",
        "benchmark",
        "path",
        "line",
        "kind",
        "message",
    ]
    assert set(anomalies["kind"]) <= set(codes.ANOMALY_KINDS)
    assert pd.read_json(out / "anomalies.json").shape == anomalies.shape
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == 15 and len(pd.read_csv(out / "runs.csv")) == 15
    scores = pd.read_parquet(out / "scores.parquet")
    assert {"org", "system", "benchmark"} <= set(scores.columns) and len(scores) == 3
    assert set(pd.read_csv(out / "orgs.csv")["org"]) == {"Acme", "Beta"}


def test_output_never_inside_the_audited_tree(tmp_path: Path) -> None:
    with pytest.raises(AuditError):
        check_output_dir(ROUND, ROUND / "Acme" / "out")
    done = run_cli("audit", str(ROUND), "--out", str(ROUND / "report"))
    assert done.returncode == 2 and not (ROUND / "report").exists()
    assert run_cli("audit", str(tmp_path / "nope"), "--out", str(tmp_path / "o")).returncode == 2
    # The round is not in the folder name: the ruleset must be given.
    assert run_cli("audit", str(ROUND), "--out", str(tmp_path / "o")).returncode == 2


def test_write_outputs_with_no_rows(tmp_path: Path) -> None:
    empty = tmp_path / "v1.0"
    empty.mkdir()
    with pytest.raises(AuditError, match="nothing audited"):  # nothing checked: no success
        run_audit(empty)
    result = AuditResult(str(empty), "1.0.0")
    assert result.orgs == []
    write_outputs(result, tmp_path / "out")
    assert pd.read_parquet(tmp_path / "out/runs.parquet").columns[0] == "org"


def test_duplicates_across_rounds_and_in_nested_folders(tmp_path: Path) -> None:
    import shutil

    for name in ("v1.0", "v1.1"):
        shutil.copytree(FIXTURES / "audit/clean", tmp_path / name)
    nested = tmp_path / "v1.1/Acme/results/acme-8x/resnet/old"
    nested.mkdir()
    shutil.copy(tmp_path / "v1.1/Acme/results/acme-8x/resnet/result_0.txt", nested / "result_9.txt")
    result = run_audit([tmp_path / "v1.0", tmp_path / "v1.1"], jobs=1)
    assert result.ruleset == "1.0.0, 1.1.0"
    assert [o["org"] for o in result.orgs] == ["v1.0/Acme", "v1.1/Acme"]
    dups = sorted(
        (a.path, a.message.split(" (")[0]) for a in result.anomalies if a.name == "duplicate-log"
    )
    expected = [
        (
            f"v1.1/Acme/results/acme-8x/resnet/result_{n}.txt",
            f"identical records to v1.0/Acme/results/acme-8x/resnet/result_{n}.txt",
        )
        for n in range(5)
    ]
    expected.append(
        (
            "v1.1/Acme/results/acme-8x/resnet/old/result_9.txt",
            "identical records to v1.0/Acme/results/acme-8x/resnet/result_0.txt",
        )
    )
    assert dups == sorted(expected)
    assert len(result.runs) == 10  # the nested copy is hashed, not counted as a run


@pytest.mark.corpus
def test_corpus_v1_0(corpus: Path, oracle: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit"
    # --preview: MLC107 (preview) is what MLA030 lists, file for file.
    done = run_cli("audit", str(corpus / "v1.0"), "--out", str(out), "--preview")
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    anomalies = pd.read_csv(out / "anomalies.csv")
    strays = set(anomalies.loc[anomalies["kind"] == "stray-file", "path"])
    assert {
        "Graphcore/systems/.ipu-pod16-POPART.json.swp",
        "Graphcore/systems/.ipu-pod64-POPART.json.swp",
    } <= strays
    failed = {
        r["file"] for r in read_oracle(oracle, "runs_v1.0.csv") if r["run_stop_status"] != "success"
    }
    assert len(failed) == 5
    assert failed == set(anomalies.loc[anomalies["kind"] == "not-converged", "path"])
    # Habana's resnet/bert/ folder holds copies of its bert/ logs.
    dups = anomalies.loc[anomalies["kind"] == "duplicate-log", "path"]
    assert sorted(dups) == [
        f"Habana/results/SYS-420GH-TNGR/resnet/bert/result_{n}.txt" for n in range(10)
    ]
    # every log check warns about for time_ms 0 (MLC107) is in the anomaly table, once;
    # records after run_stop only where they change a result (NVIDIA DLRM's hyperparameters)
    problems = pd.read_csv(out / "problems.csv")
    zero = anomalies.loc[anomalies["kind"] == "time-ms-zero", "path"]
    assert sorted(zero) == sorted(set(problems.loc[problems["rule"] == "MLC107", "path"]))
    assert len(zero) == 155
    after = anomalies.loc[anomalies["kind"] == "lines-after-run-stop", "path"]
    assert sorted(after) == [
        f"NVIDIA/results/dgxa100_ngc21.05_merlin_hugectr/dlrm/result_{n}.txt" for n in range(5)
    ]
    runs = pd.read_parquet(out / "runs.parquet")
    oracle_runs = {r["file"]: r for r in read_oracle(oracle, "runs_v1.0.csv")}
    assert set(runs["path"]) == set(oracle_runs)
    for row in runs.itertuples():
        expected = oracle_runs[row.path]
        assert row.run_stop_status == expected["run_stop_status"]
        assert abs(row.minutes - float(expected["raw_minutes"])) < 1e-4


def test_an_org_that_cannot_be_checked_gets_a_row_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mllog_check.submission import audit as audit_module

    real = audit_module.check_package

    def flaky(root: str, ruleset: str, *, audit: bool = False) -> object:
        if root.endswith("Beta"):
            raise OSError("disk on fire")
        return real(root, ruleset, audit=audit)

    monkeypatch.setattr(audit_module, "check_package", flaky)
    result = run_audit(ROUND, "1.0.0", jobs=1)
    beta = next(o for o in result.orgs if o["org"] == "Beta")
    assert beta["passed"] is False and beta["failure"] == "OSError: disk on fire"
    assert {r["org"] for r in result.runs} == {"Acme"}
    assert not result.clean


def test_anomalies_across_the_runs_of_one_result() -> None:
    """MLA015-MLA017, one planted per run (fixtures/audit/sets)."""
    result = run_audit(FIXTURES / "audit/sets", "1.0.0", jobs=1)
    folder = "Acme/results/acme-8x/resnet"
    # Exactly one per planted run, none on the clean runs 3 and 4 (paths are relative to
    # the round, as in the audit's tables).
    assert sorted((a.name, a.path, a.line) for a in result.anomalies) == [
        ("batch-size-differs", f"{folder}/result_1.txt", 10),
        ("runs-far-apart", f"{folder}/result_2.txt", 2),
        ("target-not-reached", f"{folder}/result_0.txt", 22),
    ]
