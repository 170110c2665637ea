"""Seed checks (closed division): fixtures and real logs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check.problems import Severity
from mllog_check.results import compute_scores

SCORE = FIXTURES / "score"


def _seed_problems(path: Path) -> list[tuple[str, str, Severity]]:
    report = compute_scores([str(path)], "1.0.0")
    return sorted(
        (p.rule, Path(p.path).name, p.severity)
        for p in report.problems
        if p.rule.startswith("MLR02")
    )


def test_distinct_seeds_are_fine() -> None:
    assert _seed_problems(SCORE / "olympic") == []


def test_same_seed_in_two_runs_is_an_error_on_both() -> None:
    assert _seed_problems(SCORE / "seed_reused") == [
        ("MLR020", "result_0.txt", Severity.ERROR),
        ("MLR020", "result_1.txt", Severity.ERROR),
    ]


def test_run_without_seed_among_seeded_runs_is_a_warning() -> None:
    assert _seed_problems(SCORE / "seed_missing") == [("MLR021", "result_0.txt", Severity.WARNING)]


def test_several_seeds_in_one_run_is_a_warning() -> None:
    report = compute_scores([str(SCORE / "seed_several")], "1.0.0")
    (problem,) = [p for p in report.problems if p.rule.startswith("MLR02")]
    assert problem.rule == "MLR022" and "0, 100" in problem.message


def test_open_division_is_not_seed_checked(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(SCORE / "seed_reused", tree)
    for log in tree.rglob("result_*.txt"):
        log.write_text(log.read_text().replace('"value": "closed"', '"value": "open"'))
    # The system description decides, as in the official package checker and summarizer:
    # logs saying "open" in a system described as closed are still checked.
    assert len(_seed_problems(tree)) == 2
    for desc in tree.rglob("systems/*.json"):
        desc.write_text(desc.read_text().replace('"closed"', '"open"'))
    assert _seed_problems(tree) == []


@pytest.mark.corpus
def test_real_logs_copied_twice_reuse_their_seed(corpus: Path, tmp_path: Path) -> None:
    # Supermicro's v1.0 RNN-T (seed 2021 in all 10 runs) is not in the corpus: a real
    # closed RNN-T folder with one run duplicated shows the same reuse.
    source = corpus / "v1.0" / "NVIDIA" / "results" / "dgxa100_ngc21.05_pytorch" / "rnnt"
    target = tmp_path / "NVIDIA" / "results" / "dgxa100_ngc21.05_pytorch" / "rnnt"
    shutil.copytree(source, target)
    assert _seed_problems(target) == []  # the published runs use distinct seeds
    shutil.copy(target / "result_0.txt", target / "result_1.txt")
    found = _seed_problems(target)
    assert found == [
        ("MLR020", "result_0.txt", Severity.ERROR),
        ("MLR020", "result_1.txt", Severity.ERROR),
    ]


@pytest.mark.corpus
def test_published_closed_results_have_no_seed_reuse(corpus: Path) -> None:
    report = compute_scores([str(corpus / "v1.0")], "1.0.0")
    assert [p for p in report.problems if p.rule == "MLR020"] == []
    # Many published closed results log no seed at all (Habana BERT, NVIDIA MiniGo, Google
    # ResNet/SSD): none is "some with, some without", so no MLR021 either.
    unseeded = {(r.system, r.benchmark) for r in report.runs if not r.seeds}
    assert ("SYS-420GH-TNGR", "bert") in unseeded
    assert [p for p in report.problems if p.rule in ("MLR021", "MLR022")] == []
