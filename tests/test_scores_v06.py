"""v0.6 scores over the real corpus, recomputed independently from the raw logs.

There is no official v0.6 scores oracle: the expected olympic means come from a
small regex over the ``:::MLL <seconds> run_start/run_stop`` lines (no mllog_check
parser, no scoring data), with the v0.6 rule that the fastest and slowest run are
dropped and one failed run stands for the dropped slowest.
"""

from __future__ import annotations

import re
import shutil
import statistics
from pathlib import Path

import pytest

from mllog_check.results import Score, ScoreReport, compute_scores

pytestmark = pytest.mark.corpus

_EVENT = re.compile(r":::MLL (?P<seconds>\d+(?:\.\d+)?) (?P<key>run_start|run_stop): (?P<rest>.*)")
_STATUS = re.compile(r'"status": "(?P<status>\w+)"')

# Published MLPerf Training v0.6 results (Google tpu-v3-2048: 1024 TPU v3 chips, closed),
# minutes as the results table rounds them.
PUBLISHED = {
    ("Google", "tpu-v3-2048", "resnet"): 1.28,
    ("Google", "tpu-v3-2048", "ssd"): 1.21,
    ("Google", "tpu-v3-2048", "transformer"): 0.85,
}

_REPORT: list[ScoreReport] = []


def _report(corpus: Path) -> ScoreReport:
    if not _REPORT:
        _REPORT.append(compute_scores([str(corpus / "v0.6")], ruleset="auto"))
    return _REPORT[0]


def _scores(corpus: Path) -> dict[tuple[str, str, str], Score]:
    return {(s.org, s.system, s.benchmark): s for s in _report(corpus).scores}


def _raw_run(path: Path) -> tuple[float | None, str | None]:
    """(minutes, run_stop status) from the first run_start and run_stop lines."""
    seen: dict[str, re.Match[str]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _EVENT.search(line)
        if match is not None:
            seen.setdefault(match["key"], match)
    if "run_start" not in seen or "run_stop" not in seen:
        return None, None
    seconds = float(seen["run_stop"]["seconds"]) - float(seen["run_start"]["seconds"])
    status = _STATUS.search(seen["run_stop"]["rest"])
    return seconds / 60.0, None if status is None else status["status"]


def _expected(folder: Path) -> float | None:
    """Olympic mean of the successful runs; a failed run is the dropped slowest."""
    runs = [_raw_run(p) for p in sorted(folder.glob("result_*.txt"))]
    times = sorted(m for m, status in runs if m is not None and status == "success")
    failed = len(runs) - len(times)
    if failed > 1:
        return None
    kept = times[1 : len(times) - (1 - failed)]
    return statistics.fmean(kept)


def _folders(corpus: Path) -> list[Path]:
    return sorted({p.parent for p in (corpus / "v0.6").rglob("result_*.txt")})


def test_every_v06_result_is_scored_or_says_why(corpus: Path) -> None:
    report, scores = _report(corpus), _scores(corpus)
    expected = {(f.parents[2].name, f.parent.name, f.name) for f in _folders(corpus)}
    assert set(scores) == expected and len(expected) == 27
    for key, score in scores.items():
        assert score.ruleset == "0.6.0", key  # from the v0.6 folder (rules.detect)
        if score.valid:
            assert score.minutes is not None and score.minutes > 0, key
        else:
            assert score.minutes is None and score.reason, key
    assert "MLS010" not in {p.rule for p in report.problems}
    assert sum(s.valid for s in scores.values()) == 26


def test_v06_scores_equal_the_raw_run_times(corpus: Path) -> None:
    scores = _scores(corpus)
    checked = 0
    for folder in _folders(corpus):
        score = scores[(folder.parents[2].name, folder.parent.name, folder.name)]
        want = _expected(folder)
        if want is None:
            assert not score.valid, folder
            continue
        assert score.valid, (folder, score.reason)
        assert score.minutes == pytest.approx(want, abs=1e-6), folder
        checked += 1
    assert checked == 26


@pytest.mark.parametrize(("key", "minutes"), sorted(PUBLISHED.items()))
def test_published_v06_results(key: tuple[str, str, str], minutes: float, corpus: Path) -> None:
    score = _scores(corpus)[key]
    assert score.valid and round(score.minutes or 0.0, 2) == minutes


def test_v06_target_forms_decide_convergence(corpus: Path) -> None:
    """BLEU in points (24.19 >= 24.0) and Mask R-CNN's [BBOX, SEGM] list converge."""
    report = _report(corpus)
    by_bench: dict[str, list[bool]] = {}
    for run in report.runs:
        if run.org == "Google":
            by_bench.setdefault(run.benchmark, []).append(run.converged)
    assert set(by_bench) == {"gnmt", "mask", "resnet", "ssd", "transformer"}
    for bench in ("gnmt", "transformer", "mask"):
        assert all(by_bench[bench]), bench
    assert by_bench["resnet"].count(False) == 1  # tpu-v3-1024's aborted run


def test_v06_failed_run_is_the_dropped_slowest(corpus: Path) -> None:
    folder = corpus / "v0.6" / "Google" / "results" / "tpu-v3-1024" / "resnet"
    runs = [_raw_run(p) for p in sorted(folder.glob("result_*.txt"))]
    assert [status for _, status in runs].count("success") == 4
    times = sorted(m for m, status in runs if status == "success" and m is not None)
    score = _scores(corpus)[("Google", "tpu-v3-1024", "resnet")]
    # Four successful runs: the fastest dropped, the aborted run is the slowest dropped.
    assert score.minutes == pytest.approx(statistics.fmean(times[1:]), abs=1e-6)
    assert score.runs_counted == 4 and "1 failed run" in score.reason


def test_v06_logs_without_mll_records_are_invalid_with_reason(corpus: Path) -> None:
    # Alibaba's v0.6 files are in another log format (no :::MLL records).
    report = _report(corpus)
    score = _scores(corpus)[("Alibaba", "sinian", "resnet")]
    assert not score.valid and "5 runs failed" in score.reason
    untimed = [p for p in report.problems if p.rule == "MLR003"]
    assert len(untimed) == 5 and all("/Alibaba/" in p.path for p in untimed)


def test_v06_compliance_is_approximated_and_said(corpus: Path) -> None:
    for score in _scores(corpus).values():
        assert "compliance approximated" in score.reason
        assert "0.6.0 rules fail every published v0.6 log" in score.reason


# The value shapes published v0.6 logs use besides the corpus's (docs/scores.md, "Quality
# values"): NVIDIA's Mask R-CNN writes {"accuracy": {"BBOX": .., "SEGM": ..}} and its
# Transformer BLEU as text. Real Google v0.6 logs, rewritten into those shapes.
_MASK_VALUE = re.compile(r'"value": \[([^,\]]+), ([^\]]+)\]')
_BLEU_VALUE = re.compile(r'(eval_accuracy: \{"value": )([0-9.]+)')


def _rewritten(corpus: Path, tmp_path: Path, bench: str, pattern: re.Pattern[str], to: str) -> Path:
    src = corpus / "v0.6" / "Google"
    org = tmp_path / "v0.6" / "Google"
    shutil.copytree(src / "results" / "tpu-v3-128" / bench, org / "results" / "tpu-v3-128" / bench)
    shutil.copytree(src / "systems", org / "systems")
    for log in (org / "results" / "tpu-v3-128" / bench).glob("result_*.txt"):
        text = log.read_text(encoding="utf-8")
        new = "\n".join(
            pattern.sub(to, line) if "eval_accuracy" in line else line for line in text.split("\n")
        )
        assert new != text
        log.write_text(new, encoding="utf-8")
    return org


@pytest.mark.parametrize(
    ("bench", "pattern", "to"),
    [
        ("mask", _MASK_VALUE, r'"value": {"accuracy": {"BBOX": \1, "SEGM": \2}}'),
        ("transformer", _BLEU_VALUE, r'\1"\2"'),
    ],
    ids=["mask-nested-dict", "transformer-bleu-text"],
)
def test_nvidia_v06_value_shapes_score_as_the_corpus_shapes(
    corpus: Path, tmp_path: Path, bench: str, pattern: re.Pattern[str], to: str
) -> None:
    org = _rewritten(corpus, tmp_path, bench, pattern, to)
    report = compute_scores([str(org)], ruleset="auto")
    (score,) = report.scores
    assert score.valid, score.reason
    assert score.minutes == pytest.approx(_scores(corpus)[("Google", "tpu-v3-128", bench)].minutes)
    assert all(run.converged for run in report.runs)
    assert not {p.rule for p in report.problems} & {"MLR041", "MLR065"}


def test_an_unreadable_value_is_not_a_missed_target(corpus: Path, tmp_path: Path) -> None:
    org = _rewritten(corpus, tmp_path, "transformer", _BLEU_VALUE, r'\1"BLEU \2"')
    report = compute_scores([str(org)], ruleset="auto")
    unread = [p for p in report.problems if p.rule == "MLR065"]
    assert len(unread) == 10 and all("BLEU" in p.message for p in unread)
    for problem in report.problems:
        assert "never reached" not in problem.message, problem
    assert all(run.unread_quality and not run.converged for run in report.runs)
