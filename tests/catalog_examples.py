"""Run catalog examples through their stage (tests/test_catalog.py's runners; test code,
not shipped: the examples are fixture folders of this repository).

Package and audit examples (MLP/MLA codes):

An example is a fixture folder relative to the project root
(``fixtures/package/clean/Acme``), or ``link-escape:`` / ``unreadable:`` followed by
such a folder: a temporary copy of it, with a result file replaced by a link leaving
the tree, or each system description replaced by a broken link.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from mllog_check.problems import Problem

ROOT = Path(__file__).resolve().parents[1]


def run_example(stage: str, example: str) -> set[str]:
    """The codes the package checker (or the audit) reports on the example."""
    kind, _, folder = example.rpartition(": ")
    with tempfile.TemporaryDirectory() as tmp:
        root = ROOT / folder
        if kind:
            root = _build(kind, root, Path(tmp))
        return _codes(stage, root)


def _codes(stage: str, root: Path) -> set[str]:
    if stage == "audit":
        from mllog_check.submission.audit import run_audit

        return {a.rule for a in run_audit(root, "1.0.0", jobs=1).anomalies}
    from mllog_check.submission.package import check_package

    return {p.rule for p in check_package(root, "1.0.0").problems}


def _build(kind: str, source: Path, tmp: Path) -> Path:
    org = tmp / "tree" / source.name
    shutil.copytree(source, org, symlinks=True)
    if kind == "link-escape":
        outside = tmp / "outside.txt"
        outside.write_text("not part of the tree\n", encoding="utf-8")
        target = next(iter(sorted(org.glob("results/*/*/result_0.txt"))))
        target.unlink()
        target.symlink_to(outside)
    elif kind == "unreadable":
        for desc in sorted(org.glob("systems/*.json")):
            desc.unlink()
            desc.symlink_to(desc.parent / "missing.json")  # broken link inside the tree
    else:
        raise ValueError(f"unknown example kind {kind!r}")
    return org


def score_example(example: str) -> list[Problem]:
    """Score a catalog example folder (relative to the project root): its problems."""
    from mllog_check.results import compute_scores

    return compute_scores([str(ROOT / example)], ruleset="1.0.0").problems


def power_example(folder: str) -> list[Problem]:
    """Check a fixture benchmark folder with power/ logs (relative to the project root)."""
    from mllog_check.power.checks import check_benchmark_folder

    return check_benchmark_folder(str(ROOT / folder)).problems
