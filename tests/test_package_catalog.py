"""Every MLP/MLA code: its failing example reports it, its passing example does not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

from mllog_check import catalog
from mllog_check.submission import codes  # noqa: F401 - registers the codes
from mllog_check.submission.audit import run_audit
from mllog_check.submission.package import check_package

OURS = [r for r in catalog.all_rules() if r.code.startswith(("MLP", "MLA"))]
FOLDER = re.compile(r"^fixtures/\S+$")


def _found(stage: str, example: str) -> set[str]:
    path = ROOT / example
    if stage == "audit":
        return {a.code for a in run_audit(path, "1.0.0", jobs=1).anomalies}
    return {p.rule for p in check_package(path, "1.0.0").problems}


@pytest.mark.parametrize("rule", OURS, ids=lambda r: r.code)
def test_examples(rule: catalog.RuleInfo) -> None:
    assert rule.stage in ("package", "audit")
    assert FOLDER.match(rule.good_example), rule.good_example
    assert rule.code not in _found(rule.stage, rule.good_example)
    if not FOLDER.match(rule.bad_example):
        # Built at test time (links, unreadable files) or defensive: named in the text.
        assert rule.code in {"MLP007", "MLP008", "MLP030", "MLP031"}
        return
    assert rule.code in _found(rule.stage, rule.bad_example)


def test_codes_are_documented() -> None:
    docs = (ROOT / "docs/package.md").read_text() + (ROOT / "docs/audit.md").read_text()
    missing = [r.code for r in OURS if r.code not in docs]
    assert missing == []
    assert all((Path(ROOT) / r.good_example).is_dir() for r in OURS)
