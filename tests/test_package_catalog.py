"""Every MLP/MLA code: its failing example reports it, its passing example does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_examples import run_example
from conftest import ROOT

from mllog_check import catalog
from mllog_check.submission import codes  # noqa: F401 - registers the codes
from mllog_check.submission.package import check_package

OURS = [r for r in catalog.all_rules() if r.code.startswith(("MLP", "MLA"))]
DEFENSIVE = {"MLP031"}  # no data triggers it: tested below by breaking a stage


@pytest.mark.parametrize("rule", OURS, ids=lambda r: r.code)
def test_examples(rule: catalog.RuleInfo) -> None:
    assert rule.stage.partition("@")[0] in ("package", "audit", "audit-rounds")
    assert rule.code not in run_example(rule.stage, rule.good_example)
    if rule.code in DEFENSIVE:
        assert rule.bad_example == ""
        return
    assert rule.code in run_example(rule.stage, rule.bad_example)


def test_codes_are_documented() -> None:
    docs = (ROOT / "docs/package.md").read_text() + (ROOT / "docs/audit.md").read_text()
    assert [r.code for r in OURS if r.code not in docs] == []
    # An example is a fixture folder, or one with edits on the lines after it.
    assert all((Path(ROOT) / r.good_example.splitlines()[0]).is_dir() for r in OURS)


def test_rules_the_build_lacks_are_never_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compliance stage told that the round's rules are not in this build: a usage
    error for the whole package (exit 2: tests/test_registry.py), not one failed log."""
    import mllog_check.rules
    from mllog_check.rules import UnknownRuleset
    from mllog_check.submission.package import RoundUnavailable

    def unknown(result: object, ruleset: object = "1.0.0", **_: object) -> None:
        raise UnknownRuleset("round 1.0.0 has no rules data in this build")

    monkeypatch.setattr(mllog_check.rules, "check_log", unknown)
    with pytest.raises(RoundUnavailable, match=r"no rules data in this build: .* not checked"):
        check_package(ROOT / "fixtures/package/clean/Acme", "1.0.0")


def test_a_stage_that_raises_is_reported_per_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import mllog_check.rules

    def broken(result: object, ruleset: str = "1.0.0", **_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(mllog_check.rules, "check_log", broken)
    report = check_package(ROOT / "fixtures/package/clean/Acme", "1.0.0")
    failed = [p for p in report.problems if p.rule == "MLP031"]
    # Five logs, and the scores stage (which asks the compliance engine too) once.
    on_files = [p for p in failed if p.path.endswith(".txt")]
    assert (
        len(on_files) == 5 and "compliance stage failed: RuntimeError: boom" in on_files[0].message
    )
    assert [p.message for p in failed if p not in on_files] == [
        "scores stage failed: RuntimeError: boom"
    ]
    assert not report.passed
