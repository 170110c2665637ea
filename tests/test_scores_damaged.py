"""`score` on incomplete or damaged result sets (docs/scores.md): real corpus folders
copied into tmp and mutated. Never an exception; the run count (MLR001), the unusable
file and why (MLR003, MLR041, MLR042) and an RCP verdict "Not evaluated" with the
reason (MLR040)."""

from __future__ import annotations

import random
import re
import shutil
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import read_oracle

from mllog_check.cli import cli
from mllog_check.results import Score, compute_scores
from mllog_check.results.rcp import NOT_EVALUATED

pytestmark = pytest.mark.corpus

# v1.0 NVIDIA DGX A100 MXNet ResNet: 5 runs, closed, RCP Pass; result_1 is aborted.
ORG, SYSTEM, BENCH = "NVIDIA", "dgxa100_ngc21.05_mxnet", "resnet"


def _copy(corpus: Path, tmp_path: Path) -> Path:
    """The real result folder under tmp/v1.0/<org>/ (the round folder names the round)."""
    src = corpus / "v1.0" / ORG
    org = tmp_path / "v1.0" / ORG
    folder = org / "results" / SYSTEM / BENCH
    folder.mkdir(parents=True)
    (org / "systems").mkdir()
    shutil.copy(src / "systems" / f"{SYSTEM}.json", org / "systems")
    for log in sorted((src / "results" / SYSTEM / BENCH).glob("result_*.txt")):
        shutil.copy(log, folder / log.name)
    return folder


def _score(folder: Path) -> tuple[Score, list[tuple[str, str, str]]]:
    report = compute_scores([str(folder)])
    (score,) = report.scores
    return score, [(p.rule, Path(p.path).name, p.message) for p in report.problems]


def _drop_lines(log: Path, key: str) -> None:
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join(x for x in lines if f'"key": "{key}"' not in x), encoding="utf-8")


def test_the_unmutated_copy_scores_as_published(corpus: Path, tmp_path: Path) -> None:
    score, problems = _score(_copy(corpus, tmp_path))
    assert score.valid and round(score.minutes or 0, 2) == 28.77 and score.rcp_verdict == "Pass"
    # the published aborted run is named, and counts as the dropped slowest
    assert problems == [("MLR041", "result_1.txt", "run not counted: run_stop status 'aborted'")]


def test_a_single_result_file(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    for log in folder.glob("result_*.txt"):
        if log.name != "result_0.txt":
            log.unlink()
    score, problems = _score(folder)
    assert not score.valid and score.minutes is None
    assert score.rcp_verdict == NOT_EVALUATED
    assert score.rcp_message == "1 run(s) found; the RCP check needs the round's 5"
    assert ("MLR001", BENCH, "1 runs; round v1.0 requires exactly 5") in problems
    assert ("MLR040", BENCH, f"RCP not evaluated: {score.rcp_message}") in problems


def test_runs_removed(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    (folder / "result_3.txt").unlink()
    (folder / "result_4.txt").unlink()
    score, problems = _score(folder)
    # Scored as the official summarizer does (it never counts runs), the count an error.
    assert score.valid and "3 runs; round v1.0 requires exactly 5" in score.reason
    assert score.rcp_verdict == NOT_EVALUATED
    assert {p[0] for p in problems} >= {"MLR001", "MLR040"}


def test_a_run_duplicated(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    shutil.copy(folder / "result_0.txt", folder / "result_5.txt")
    score, problems = _score(folder)
    assert "6 runs; round v1.0 requires exactly 5" in score.reason  # v1.0 counts are exact
    message = "same run_start and run_stop times as result_0.txt: a copy of one run"
    assert ("MLR042", "result_5.txt", message) in problems
    assert ("MLR020", "result_5.txt") in {p[:2] for p in problems}  # the seed, reused


def test_a_truncated_file(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    log = folder / "result_3.txt"
    data = log.read_bytes()
    log.write_bytes(data[: len(data) // 2])
    score, problems = _score(folder)
    # the aborted run and the truncated one: two failed runs of five
    assert not score.valid and score.rcp_verdict == "Insufficient convergence"
    assert ("MLR003", "result_3.txt", "no run_stop (file truncated?): run not timed") in problems
    assert "MLR002" in {p[0] for p in problems}


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("run_start", "no run_start: run not timed"),
        ("run_stop", "no run_stop (file truncated?): run not timed"),
    ],
)
def test_run_start_or_run_stop_removed(
    corpus: Path, tmp_path: Path, key: str, message: str
) -> None:
    folder = _copy(corpus, tmp_path)
    _drop_lines(folder / "result_2.txt", key)
    score, problems = _score(folder)
    assert not score.valid and score.minutes is None
    assert ("MLR003", "result_2.txt", message) in problems


def test_an_empty_file(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    (folder / "result_4.txt").write_bytes(b"")
    score, problems = _score(folder)
    assert not score.valid
    message = "no MLLOG record (empty or unreadable file): run not timed"
    assert ("MLR003", "result_4.txt", message) in problems


def test_status_aborted(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    log = folder / "result_0.txt"
    text = log.read_text(encoding="utf-8").replace('"status": "success"', '"status": "aborted"')
    log.write_text(text, encoding="utf-8")
    score, problems = _score(folder)
    # Compliance never reads the status, and result_0 reached its target: it still counts
    # (as in the official summarizer), while the RCP check counts it as not converged.
    assert score.valid and score.runs_counted == 4
    assert score.rcp_verdict == "Insufficient convergence"
    assert "2 runs did not converge; at most 1" in score.rcp_message
    message = "run_stop status 'aborted', yet the run passes compliance and counts"
    assert ("MLR043", "result_0.txt", message) in problems


def test_score_command_exits_1_with_the_reason(corpus: Path, tmp_path: Path) -> None:
    folder = _copy(corpus, tmp_path)
    for log in folder.glob("result_*.txt"):
        if log.name != "result_0.txt":
            log.unlink()
    result = CliRunner().invoke(cli, ["score", str(folder)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "MLR001" in result.stderr and "MLR040" in result.stderr


def _mutate(folder: Path, rng: random.Random) -> None:
    for _ in range(rng.randint(1, 3)):
        logs = sorted(folder.glob("result_*.txt"))
        if not logs:
            return
        log = rng.choice(logs)
        op = rng.randrange(6)
        if op == 0:
            log.unlink()
        elif op == 1:
            shutil.copy(log, folder / f"result_{rng.randint(10, 99)}.txt")
        elif op == 2:
            data = log.read_bytes()
            log.write_bytes(data[: rng.randint(0, len(data))])
        elif op == 3:
            _drop_lines(log, rng.choice(["run_start", "run_stop", "eval_accuracy"]))
        elif op == 4:
            text = log.read_text(encoding="latin-1").replace("success", "aborted")
            log.write_text(text, encoding="latin-1")
        else:
            for other in logs:
                if other != log:
                    other.unlink()


@pytest.mark.parametrize("seed", range(20))
def test_random_damage_never_raises(corpus: Path, tmp_path: Path, seed: int) -> None:
    folder = _copy(corpus, tmp_path)
    _mutate(folder, random.Random(seed))
    report = compute_scores([str(tmp_path / "v1.0")])
    for score in report.scores:
        assert score.valid or score.reason
        assert score.rcp_verdict is None or score.rcp_message


def test_a_v5_1_llm_set_with_fewer_runs_than_required(corpus: Path, tmp_path: Path) -> None:
    """A submission folder mid-way: 4 of the 10 Llama 3.1 8B runs (v5.1 Oracle)."""
    src = corpus / "v5.1" / "Oracle"
    org = tmp_path / "v5.1" / "Oracle"
    folder = org / "results" / "8xBM.GPU.B200.8" / "llama31_8b"
    folder.mkdir(parents=True)
    (org / "systems").mkdir()
    shutil.copy(src / "systems" / "8xBM.GPU.B200.8.json", org / "systems")
    for log in sorted((src / "results" / "8xBM.GPU.B200.8" / "llama31_8b").glob("result_*"))[:4]:
        shutil.copy(log, folder / log.name)
    score, problems = _score(folder)
    assert score.rcp_verdict == NOT_EVALUATED
    assert score.rcp_message == "4 run(s) found; the RCP check needs the round's 10"
    assert ("MLR001", "llama31_8b", "4 runs; round v5.1 requires at least 10") in problems


def test_22_unet3d_runs_of_40_score_as_the_summarizer(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    """v1.0 Supermicro as-4142gs-tnr published unet3d with 22 of the 40 runs the round
    asks for; the official summarizer (which never counts runs) scored it 41.22 min.
    Real v1.0 unet3d logs cut to 22: the olympic mean without the 4 fastest and 4
    slowest of the oracle's run times, with the count an error (MLR001)."""
    system = "dgxa100_ngc21.05_mxnet"
    src = corpus / "v1.0" / ORG / "results" / system / "unet3d"
    org = tmp_path / "v1.0" / ORG
    folder = org / "results" / system / "unet3d"
    folder.mkdir(parents=True)
    (org / "systems").mkdir()
    shutil.copy(corpus / "v1.0" / ORG / "systems" / f"{system}.json", org / "systems")
    kept = [f"result_{i}.txt" for i in range(22)]
    for name in kept:
        shutil.copy(src / name, folder / name)
    (row,) = [
        r
        for r in read_oracle(oracle, "scores_v1.0.csv")
        if (r["org"], r["system"], r["benchmark"]) == (ORG, system, "unet3d")
    ]
    minutes = {
        m["file"]: float(m["minutes"])
        for m in re.finditer(r"(?P<file>result_\d+\.txt)=(?P<minutes>[0-9.]+)min", row["raw_runs"])
    }
    times = sorted(minutes[name] for name in kept)
    score, problems = _score(folder)
    assert score.valid and score.minutes == pytest.approx(statistics.fmean(times[4:-4]), abs=1e-3)
    assert "22 runs; round v1.0 requires exactly 40 (scored as" in score.reason
    assert ("MLR001", "unet3d", "22 runs; round v1.0 requires exactly 40") in problems
