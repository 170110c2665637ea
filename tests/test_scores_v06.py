"""v0.6 scores over the real corpus, recomputed independently from the raw logs.

There is no official v0.6 scores oracle: the expected olympic means come from a
small regex over the ``:::MLL <seconds> run_start/run_stop`` lines (no mllog_check
parser, no scoring data), with the v0.6 rule that the fastest and slowest run are
dropped and one failed run stands for the dropped slowest. A log without run_stop is
timed as the 0.6.0 rules' score.yaml times MiniGo: its ``eval_result`` metadata
``timestamp`` in seconds, 0 being a failure. Which result sets and files the round has
comes from the oracle's ``records_v0.6.csv`` (every file the official parser read).
"""

from __future__ import annotations

import re
import shutil
import statistics
from pathlib import Path

import pytest
from conftest import read_oracle

from mllog_check.results import Score, ScoreReport, compute_scores

pytestmark = pytest.mark.corpus

_EVENT = re.compile(
    r":::MLL (?P<seconds>\d+(?:\.\d+)?) (?P<key>run_start|run_stop|eval_result): (?P<rest>.*)"
)
_STATUS = re.compile(r'"status": "(?P<status>\w+)"')
_TIMESTAMP = re.compile(r'"timestamp": (?P<seconds>\d+(?:\.\d+)?)')
_RESULT_FILE = re.compile(
    r"^(?P<org>[^/]+)/results/(?P<system>[^/]+)/(?P<bench>[^/]+)/result_[^/]*\.txt$"
)

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
    """(minutes, run_stop status) from the first run_start and run_stop lines; without
    run_stop, from the eval_result timestamp (status success when above 0)."""
    seen: dict[str, re.Match[str]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _EVENT.search(line)
        if match is not None:
            seen.setdefault(match["key"], match)
    if "run_stop" not in seen and "eval_result" in seen:
        stamp = _TIMESTAMP.search(seen["eval_result"]["rest"])
        seconds = float(stamp["seconds"]) if stamp else 0.0
        return (seconds / 60.0, "success") if seconds > 0 else (None, None)
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


def _oracle_files(oracle: Path) -> dict[str, int]:
    """Result file (relative to the round) -> records the official 0.6.0 parser read."""
    rows = read_oracle(oracle, "records_v0.6.csv")
    return {r["file"]: int(r["official_records"]) for r in rows if _RESULT_FILE.match(r["file"])}


def test_every_v06_result_is_scored_or_says_why(corpus: Path, oracle: Path) -> None:
    report, scores = _report(corpus), _scores(corpus)
    files = _oracle_files(oracle)
    expected = {(m["org"], m["system"], m["bench"]) for m in map(_RESULT_FILE.match, files) if m}
    on_disk = {(f.parents[2].name, f.parent.name, f.name) for f in _folders(corpus)}
    assert expected and set(scores) == expected == on_disk
    for key, score in scores.items():
        assert score.ruleset == "0.6.0", key  # from the v0.6 folder (rules.detect)
        if score.valid:
            assert score.minutes is not None and score.minutes > 0, key
        else:
            assert score.minutes is None and score.reason, key
    assert "MLS010" not in {p.rule for p in report.problems}
    # Valid exactly where the raw times give an olympic mean (a benchmark of the round).
    timed = {
        (f.parents[2].name, f.parent.name, f.name)
        for f in _folders(corpus)
        if _expected(f) is not None
    }
    assert {k for k, s in scores.items() if s.valid} == timed


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
    assert checked == sum(s.valid for s in scores.values()) > 0


def test_v06_minigo_is_timed_by_its_eval_result(corpus: Path) -> None:
    """v0.6 MiniGo logs have no run_stop: each run's time is its eval_result
    timestamp, as the 0.6.0 score.yaml prints it, and none is 'not timed'."""
    report, scores = _report(corpus), _scores(corpus)
    folders = [f for f in _folders(corpus) if f.name == "minigo"]
    assert folders  # the round's MiniGo results of the corpus
    untimed = {p.path for p in report.problems if p.rule in ("MLR003", "MLR033")}
    runs = {run.path: run for run in report.runs}
    for folder in folders:
        for path in sorted(folder.glob("result_*.txt")):
            minutes, status = _raw_run(path)
            assert minutes is not None and status == "success", path  # no run_stop here
            run = runs[str(path)]
            assert run.timed_by == "eval_result" and run.run_stop_status is None
            assert run.minutes == pytest.approx(minutes, abs=1e-9) and run.counted, path
            assert str(path) not in untimed
        score = scores[(folder.parents[2].name, folder.parent.name, folder.name)]
        assert score.valid and score.minutes == pytest.approx(_expected(folder), abs=1e-6)
    assert not [p for p in report.problems if p.rule == "MLR043"]  # no "counted despite"


def test_v06_minigo_without_a_model_at_the_target_fails(corpus: Path, tmp_path: Path) -> None:
    """A MiniGo eval_result timestamp of 0 is a failed run (0.6.0 minigo.yaml: "timestamp
    0 is a failure"); two of them make the result invalid (one stands for the slowest)."""
    src = next(f for f in _folders(corpus) if f.name == "minigo")
    org = tmp_path / "v0.6" / src.parents[2].name
    folder = org / "results" / src.parent.name / src.name
    shutil.copytree(src, folder)
    logs = sorted(folder.glob("result_*.txt"))
    for log in logs[:2]:
        text = log.read_text(encoding="utf-8")
        new = _TIMESTAMP.sub('"timestamp": 0', text)
        assert new != text
        log.write_text(new, encoding="utf-8")
    report = compute_scores([str(org)], ruleset="auto")
    (score,) = report.scores
    assert not score.valid and "2 runs failed" in score.reason
    failed = [p for p in report.problems if p.rule == "MLR003"]
    assert sorted(p.path for p in failed) == [str(p) for p in logs[:2]]
    assert all("timestamp is 0" in p.message for p in failed)


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


def test_v06_logs_without_mll_records_are_invalid_with_reason(corpus: Path, oracle: Path) -> None:
    # Files of which the official parser read no record (Alibaba's v0.6 files are in
    # another log format) are the untimed ones; their results are invalid.
    report, scores = _report(corpus), _scores(corpus)
    empty = {f for f, records in _oracle_files(oracle).items() if records == 0}
    assert empty
    untimed = {p.path for p in report.problems if p.rule == "MLR003"}
    assert untimed == {str(corpus / "v0.6" / f) for f in empty}
    for name in empty:
        match = _RESULT_FILE.match(name)
        assert match is not None
        score = scores[(match["org"], match["system"], match["bench"])]
        assert not score.valid and "runs failed" in score.reason


def test_v06_compliance_is_approximated_and_said(corpus: Path) -> None:
    for score in _scores(corpus).values():
        assert "compliance approximated" in score.reason
        assert "0.6.0 rules fail most published v0.6 logs" in score.reason


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


def test_v06_minigo_audit_scores_it_and_finds_no_cut_off_run(corpus: Path, tmp_path: Path) -> None:
    """The audit of the round's MiniGo orgs: results valid, runs with minutes, and no
    "run_start without run_stop" (MLA007) or published-but-failing (MLA010) for them."""
    from mllog_check.submission.audit import run_audit

    folders = [f for f in _folders(corpus) if f.name == "minigo"]
    assert folders
    orgs = sorted({f.parents[2] for f in folders})
    for org in orgs:
        shutil.copytree(org, tmp_path / "v0.6" / org.name)
    result = run_audit(tmp_path / "v0.6", jobs=1)
    minigo = [r for r in result.results if r["benchmark"] == "minigo"]
    assert len(minigo) == len(folders) and all(r["valid"] for r in minigo)
    assert all(r["worst_kind"] != "published-but-failing" for r in minigo)
    for row in (r for r in result.runs if r["benchmark"] == "minigo"):
        minutes, _ = _raw_run(tmp_path / "v0.6" / row["path"])
        assert row["minutes"] == pytest.approx(minutes, abs=1e-9), row["path"]
    flagged = {a.rule for a in result.anomalies if a.context and a.context.benchmark == "minigo"}
    assert not flagged & {"MLA007", "MLA010"}, flagged
