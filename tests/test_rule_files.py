"""The shipped rule files state each round once: no copies, only changes, all documented.

The official checker ships a full copy of every rule file per round (180 of its files
are byte-identical); here a round extends a neighbour and says only what differs.
"""

from __future__ import annotations

import hashlib
import re
from itertools import combinations
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from mllog_check.rounds import parse_round
from mllog_check.rules import available_rulesets, load_ruleset
from mllog_check.rules.changes import changes, markdown
from mllog_check.rules.loader import _resolve, canonical, rules_dir

RULE_FILES = sorted((ROOT / "schemas" / "rules").glob("training-*.yaml"))
DOCS = ROOT / "docs" / "rules.md"


BASES = {"training": "training-1.0.0", "hpc": "hpc-1.0.0"}  # each usage's own base


def _neighbours() -> dict[str, str]:
    """The neighbour each round is stated against, from the round registry, among the
    rounds of its usage: the round before it, or, for a round older than the usage's base
    (Training 1.0.0), the round after it. A round added to the registry is in it (never
    skipped); a usage without a base here fails."""
    found: dict[str, str] = {}
    for usage in {parse_round(n).usage for n in available_rulesets()}:
        names = [n for n in available_rulesets() if parse_round(n).usage == usage]
        base = names.index(BASES[usage])
        for i, n in enumerate(names):
            if i != base:
                found[n] = names[i + 1] if i < base else names[i - 1]
    return found


NEIGHBOUR = _neighbours()
# Near copy: this many consecutive identical rule lines shared by two files.
MAX_SHARED_RUN = 8


def _rule_lines(path: Path) -> list[str]:
    """Lines that state something: no blanks, comments or short structural lines."""
    kept = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        text = raw.strip()
        if text and not text.startswith("#") and len(text) >= 12:
            kept.append(text)
    return kept


def _longest_shared_run(a: list[str], b: list[str]) -> int:
    """Longest run of consecutive lines of ``a`` appearing consecutively in ``b``."""
    best = 0
    previous = [0] * (len(b) + 1)
    for line_a in a:
        current = [0] * (len(b) + 1)
        for j, line_b in enumerate(b, start=1):
            if line_a == line_b:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def test_every_round_is_shipped() -> None:
    assert set(available_rulesets()) >= {"training-1.0.0", *NEIGHBOUR}
    for name in NEIGHBOUR:
        assert load_ruleset(name).name == name


def test_no_two_rule_files_are_identical() -> None:
    digests = {hashlib.sha256(p.read_bytes()).hexdigest(): p.name for p in RULE_FILES}
    assert len(digests) == len(RULE_FILES)


@pytest.mark.parametrize(
    ("first", "second"), list(combinations(RULE_FILES, 2)), ids=lambda p: p.stem
)
def test_no_two_rule_files_are_near_copies(first: Path, second: Path) -> None:
    run = _longest_shared_run(_rule_lines(first), _rule_lines(second))
    assert run <= MAX_SHARED_RUN, f"{first.name} and {second.name} share {run} lines in a row"


def test_near_copy_detector_detects_a_copy() -> None:
    lines = _rule_lines(rules_dir() / "training-1.0.0.yaml")
    assert _longest_shared_run(lines, lines) == len(lines) > MAX_SHARED_RUN
    assert _longest_shared_run(["a", "b", "c"], ["x", "b", "c", "y"]) == 2


@pytest.mark.parametrize(("name", "neighbour"), sorted(NEIGHBOUR.items()))
def test_round_extends_its_neighbour_and_restates_nothing(name: str, neighbour: str) -> None:
    raw = yaml.safe_load((rules_dir() / f"{name}.yaml").read_text(encoding="utf-8"))
    assert raw["extends"] == neighbour
    base = _resolve(canonical(neighbour), rules_dir(), ())
    for section, change in (raw.get("sections") or {}).items():
        inherited = base["sections"].get(section)
        if inherited is None:
            continue
        for key, spec in (change.get("keys") or {}).items():
            old = (inherited.get("keys") or {}).get(key, object())
            assert spec != old, f"{name}: {section}.{key} restates the inherited rule"
        for field in ("label", "parent", "when"):
            if field in change:
                assert change[field] != inherited.get(field), f"{name}: {section}.{field}"
    for key, value in (raw.get("params") or {}).items():
        assert base.get("params", {}).get(key) != value, f"{name}: params.{key} restated"


def _docs_block(text: str, name: str) -> str:
    match = re.search(
        rf"<!-- changes {re.escape(name)} -->\n(.*?)<!-- end changes {re.escape(name)} -->",
        text,
        re.DOTALL,
    )
    assert match, f"docs/rules.md has no generated changes block for {name}"
    return match[1]


@pytest.mark.parametrize("name", sorted(NEIGHBOUR))
def test_docs_list_each_rounds_changes(name: str) -> None:
    text = DOCS.read_text(encoding="utf-8")
    folder = parse_round(name).folder
    assert f"### {folder}: `{name}` (extends `{NEIGHBOUR[name]}`)" in text
    expected = markdown(name)
    assert _docs_block(text, name) == expected, "update docs/rules.md with:\n" + expected


def test_changes_name_what_differs() -> None:
    """Spot checks of the generated lists against the official files' facts."""
    assert "`common.init_stop` changed: exactly one; < 20 min after init_start" in changes("0.7.0")
    assert "`open.init_stop` added: exactly one; < 240 min after init_start" in changes("2.0.0")
    assert any(
        line.startswith("`closed_ssd.eval_accuracy` changed") and "≥ 0.34" in line
        for line in changes("2.0.0")
    )
    assert "section `closed_rnnt` removed" in changes("0.7.0")
    assert any("398 tensor names" in line for line in changes("1.1.0"))
    assert changes("1.0.0") == ["`training-1.0.0` extends nothing: it is the base ruleset"]
