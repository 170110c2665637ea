"""docs/rules.md is generated from the rule data and the catalog; it must be current."""

from __future__ import annotations

import rules_docs as docs
from conftest import ROOT

from mllog_check import catalog
from mllog_check.rules import load_ruleset


def test_rules_doc_is_current() -> None:
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert docs.generated_part(current) == docs.render(), (
        "docs/rules.md is stale: python scripts/rules_docs.py"
    )


def test_doc_names_every_code_example_and_rule_id() -> None:
    text = docs.render()
    for info in catalog.all_rules():
        if info.code.startswith("MLC"):
            assert f"### {info.code} `{info.name}`" in text
    rules = load_ruleset("1.0.0")
    for section in rules.sections.values():
        for key in section.keys:
            assert f"| `{section.name}.{key}` |" in text
    assert "## Rounds and inheritance" in text and "extends: training-1.0.0" in text
