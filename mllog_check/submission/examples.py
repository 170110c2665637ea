"""Run a catalog example of an MLP/MLA code (tests/test_catalog.py's package/audit runners).

An example is a fixture folder relative to the project root
(``fixtures/package/clean/Acme``), or ``link-escape:`` / ``unreadable:`` followed by
such a folder: a temporary copy of it, with a result file replaced by a link leaving
the tree, or each system description replaced by a broken link.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
        from .audit import run_audit

        return {a.code for a in run_audit(root, "1.0.0", jobs=1).anomalies}
    from .package import check_package

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
