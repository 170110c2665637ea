"""Hostile inputs (docs/security.md): trees, logs and files written by someone else.

Each case mutates a copy of a real published v5.0 result set in ``tmp_path``; none may
read outside the tree, hang, raise, or print/write text a terminal, CI log or
spreadsheet would act on.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from mllog_check.problems import Problem
from mllog_check.results import compute_scores
from mllog_check.results.scores import Score

pytestmark = pytest.mark.corpus

ORG = "v5.0/GigaComputing"
SYSTEM = "G893-SD1_pytorch"
BENCH = "llama2_70b_lora"


@pytest.fixture
def tree(corpus: Path, tmp_path: Path) -> Path:
    """<tmp>/tree/GigaComputing: one system's systems/*.json and one benchmark folder."""
    source = corpus / ORG
    org = tmp_path / "tree" / "GigaComputing"
    (org / "systems").mkdir(parents=True)
    shutil.copyfile(source / "systems" / f"{SYSTEM}.json", org / "systems" / f"{SYSTEM}.json")
    shutil.copytree(source / "results" / SYSTEM / BENCH, org / "results" / SYSTEM / BENCH)
    for path in org.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return org


def bench(org: Path) -> Path:
    return org / "results" / SYSTEM / BENCH


def score(org: Path) -> tuple[Score, list[Problem]]:
    report = compute_scores([str(org)], ruleset="5.0.0")
    assert len(report.scores) == 1
    return report.scores[0], report.problems


def rules(problems: list[Problem]) -> set[str]:
    return {p.rule for p in problems}


# -- 2. nothing outside the tree is read --------------------------------------------


def test_scaling_json_linked_outside_the_tree_is_not_read(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"scaling_factor": 0.001}', encoding="utf-8")
    scaling = bench(tree) / "scaling.json"
    scaling.unlink()
    scaling.symlink_to(outside)
    result, problems = score(tree)
    assert result.scaling_factor != 0.001 and result.minutes is None
    assert "MLR032" in rules(problems)


def test_system_description_linked_outside_the_tree_is_not_read(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"system_name": "FORGED", "division": "open"}', encoding="utf-8")
    desc = tree / "systems" / f"{SYSTEM}.json"
    desc.unlink()
    desc.symlink_to(outside)
    result, problems = score(tree)
    assert result.system != "FORGED" and "FORGED" not in str(result)
    assert "MLR030" in rules(problems)


def test_a_result_file_linked_outside_is_never_parsed(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file

    log = bench(tree) / "result_0.txt"
    outside = tmp_path / "outside.txt"
    shutil.copyfile(log, outside)
    log.unlink()
    log.symlink_to(outside)
    result = parse_file(str(log), root=str(tree))
    assert result.input_error and not result.records
    assert "leaves the checked tree" in result.problems[0].message


# -- 7. only regular files ----------------------------------------------------------


def _bounded(target, *args):  # type: ignore[no-untyped-def]
    """Run target in a thread; fail (not hang) when it does not return in 60 s."""
    out: list[object] = []
    thread = threading.Thread(target=lambda: out.append(target(*args)), daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "hung on a special file"
    return out[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_like_a_result_is_a_problem_not_a_hang(tree: Path) -> None:
    fifo = bench(tree) / "result_0.txt"
    fifo.unlink()
    os.mkfifo(fifo)
    result, problems = _bounded(score, tree)
    assert any(p.path == str(fifo) and "named pipe" in p.message for p in problems)
    assert result.runs_counted < 10


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_scaling_json_and_system_description_do_not_hang(tree: Path) -> None:
    for path in (bench(tree) / "scaling.json", tree / "systems" / f"{SYSTEM}.json"):
        path.unlink()
        os.mkfifo(path)
    _result, problems = _bounded(score, tree)
    assert {"MLR030", "MLR032"} <= rules(problems)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_character_device_is_never_read(tree: Path) -> None:
    from mllog_check.parsing import parse_file

    result = _bounded(parse_file, "/dev/zero")
    assert result.input_error and "a device" in result.problems[0].message
    log = bench(tree) / "result_0.txt"
    log.unlink()
    log.symlink_to("/dev/zero")
    result, problems = _bounded(score, tree)
    assert any(p.path == str(log) for p in problems)


# -- 10. numbers entering a score are finite and in range ---------------------------


@pytest.mark.parametrize("factor", ["-1", "0", "NaN", "Infinity", "1e400"])
def test_a_scaling_factor_out_of_range_gives_no_score_and_says_why(tree: Path, factor: str) -> None:
    (bench(tree) / "scaling.json").write_text(f'{{"scaling_factor": {factor}}}', "utf-8")
    result, problems = score(tree)
    assert result.minutes is None and not result.valid
    assert "MLR032" in rules(problems)
