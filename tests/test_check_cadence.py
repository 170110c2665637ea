"""MLR060 (evaluation cadence) in `check` of one log, where the log alone decides it: a
closed log of a benchmark whose round states a schedule (issue: the pre-commit hook never
saw the rule). What `check` reports must be what `package` reports on the same logs."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check.checking import check_paths
from mllog_check.follow.live import LiveCheck

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import beyond_firings

OLYMPIC = FIXTURES / "score" / "olympic"
LOG = Path("Example/results/sys8/resnet/result_2.txt")
# The rule's bad example (results/codes.py): the evaluation at epoch 12 removed.
EVALUATION = '"key": "eval_accuracy", "value": 0.5, "metadata": {"epoch_num": 12}'


def _planted(tmp_path: Path) -> Path:
    tree = tmp_path / "olympic"
    shutil.copytree(OLYMPIC, tree)
    log = tree / LOG
    lines = log.read_text().splitlines(keepends=True)
    kept = [line for line in lines if EVALUATION not in line]
    assert len(kept) == len(lines) - 1
    log.write_text("".join(kept))
    return log


def _cadence(verdict: object) -> list[object]:
    return [p for p in verdict.problems if p.rule == "MLR060"]  # type: ignore[attr-defined]


def test_check_reports_a_gap_the_log_alone_shows(tmp_path: Path) -> None:
    log = _planted(tmp_path)
    (verdict,) = check_paths([str(log)], "1.0.0").verdicts
    (found,) = _cadence(verdict)
    assert not found.is_error and verdict.passed  # a warning beyond the official tools
    assert "widest 8 epochs (epoch 8 to 16)" in found.message
    (strict,) = check_paths([str(log)], "1.0.0", strict=True).verdicts
    assert [p.is_error for p in _cadence(strict)] == [True] and not strict.passed
    (whole,) = check_paths([str(OLYMPIC / LOG)], "1.0.0").verdicts
    assert _cadence(whole) == []


def test_check_follow_reports_it_as_check_does(tmp_path: Path) -> None:
    log = _planted(tmp_path)
    live = LiveCheck(str(log), "1.0.0")
    live.feed(log.read_bytes())
    assert live.finish() == check_paths([str(log)], "1.0.0").verdicts[0]


def test_an_open_log_is_not_judged(tmp_path: Path) -> None:
    log = _planted(tmp_path)
    text = log.read_text()
    assert '"value": "closed"' in text
    log.write_text(text.replace('"value": "closed"', '"value": "open"'))
    (verdict,) = check_paths([str(log)], "1.0.0").verdicts
    assert _cadence(verdict) == []


@pytest.mark.corpus
def test_check_and_package_agree_on_every_log_of_rounds_where_it_fires(corpus: Path) -> None:
    """Every round whose firings the data file records (tests/data/beyond_firings.yaml):
    the same MLR060 problems, path and message, from `check` of each log as from the
    scores `package` computes over its result sets."""
    from mllog_check.results import compute_scores

    recorded = beyond_firings.load(beyond_firings.DATA)
    rounds = [name for name, counts in recorded.items() if counts.get("MLR060")]
    assert rounds, "MLR060 fires nowhere in the recorded corpus"
    for name in rounds:
        folder = corpus / name
        if not folder.is_dir():
            continue
        scored = compute_scores([str(folder)])
        package = {(p.path, p.message) for p in scored.problems if p.rule == "MLR060"}
        logs = sorted(str(p) for p in folder.glob("*/results/*/*/result_*.txt"))
        checked = {
            (p.path, p.message)
            for v in check_paths(logs).verdicts
            for p in v.problems
            if p.rule == "MLR060"
        }
        assert package, name
        assert checked == package, (name, sorted(checked ^ package)[:3])
