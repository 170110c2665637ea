"""Run catalog examples through their stage (tests/test_catalog.py's runners; test code,
not shipped: the examples are fixture folders of this repository).

An example is a fixture folder relative to the project root, or such a folder with
edits applied to a temporary copy (scripts/example_folders.py says how).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from example_folders import build

from mllog_check.problems import Problem

ROOT = Path(__file__).resolve().parents[1]


def run_example(stage: str, example: str) -> set[str]:
    """The codes the package checker (or the audit) reports on the example."""
    with tempfile.TemporaryDirectory() as tmp:
        return _codes(stage, build(example, Path(tmp)))


def _codes(stage: str, root: Path) -> set[str]:
    if stage == "audit":
        from mllog_check.submission.audit import run_audit

        return {a.rule for a in run_audit(root, "1.0.0", jobs=1).anomalies}
    if stage == "audit-rounds":  # a results repository: each round folder its own round
        from mllog_check.submission.audit import run_audit

        return {a.rule for a in run_audit(root, None, jobs=1).anomalies}
    from mllog_check.submission.package import check_package

    # "package@<round>": a code in force from a later round (the registry's policies).
    ruleset = stage.partition("@")[2] or "1.0.0"
    return {p.rule for p in check_package(root, ruleset).problems}


def score_example(example: str) -> list[Problem]:
    """Score a catalog example folder (relative to the project root): its problems."""
    from mllog_check.results import compute_scores

    # An example below a round folder is scored for that round: fixtures/score/v3.0/...,
    # MLPerf HPC's under fixtures/score/hpc-v1.0/ (docs/hpc.md).
    folder = Path(example.strip().splitlines()[0])
    rounds = [part for part in folder.parts if part.startswith("v") and part[1:2].isdigit()]
    ruleset = rounds[0] if rounds else "1.0.0"
    if "/hpc-v1.0/" in example:
        ruleset = "hpc-1.0.0"
    with tempfile.TemporaryDirectory() as tmp:
        tree = str(build(example, Path(tmp)))
        return compute_scores([tree], ruleset=ruleset).problems


def hparams_example(example: str) -> list[Problem]:
    """The hyperparameter table of an example folder, its borrowing file checked."""
    from mllog_check.results.borrowing import check_declarations, load_declarations
    from mllog_check.results.hparams import hparam_table

    with tempfile.TemporaryDirectory() as tmp:
        tree = build(example, Path(tmp))
        table = hparam_table([str(tree)])
        file = str(tree / "borrowings.yaml")
        return check_declarations(load_declarations(file), table.rows, file)


def power_example(folder: str) -> list[Problem]:
    """Check a fixture benchmark folder with power/ logs (relative to the project root)."""
    from mllog_check.power.checks import check_benchmark_folder

    with tempfile.TemporaryDirectory() as tmp:
        return check_benchmark_folder(str(build(folder, Path(tmp)))).problems
