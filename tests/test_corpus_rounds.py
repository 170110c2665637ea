"""Acceptance: rounds v0.6, v0.7, v1.1, v2.0 give the official verdict on every corpus log.

The verdict compared is the oracle's ``era_verdict`` where present (v1.1: the tool
that served the round), else ``official_verdict``; v0.6 has no oracle file, its
official verdicts were produced once into tests/data/official_v0.6_verdicts.csv.
Accepted differences are data (tests/data/compliance_differences_<round>.yaml) or, for
v1.1, the oracle's own era column; each is explained in docs/differences.md.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, read_oracle

import mllog_check
from mllog_check.rounds import choose
from mllog_check.rules import check_file
from mllog_check.rules.detect import check_chosen

pytestmark = pytest.mark.corpus

DATA = ROOT / "tests" / "data"

# round folder, ruleset, the oracle column to match, minimum rows expected
ROUNDS = [
    ("v0.6", "0.6.0", "official_verdict", 190),
    ("v0.7", "0.7.0", "official_verdict", 260),
    ("v1.1", "1.1.0", "era_verdict", 110),
    ("v2.0", "2.0.0", "official_verdict", 70),
]


# v2.1 onwards: the oracle column each round is matched with.
NEW_ROUNDS = [
    ("v2.1", "2.1.0", "era_verdict", 70),
    ("v3.0", "3.0.0", "official_verdict", 95),
    ("v3.1", "3.1.0", "official_verdict", 49),
    ("v4.0", "4.0.0", "official_verdict", 100),
    ("v4.1", "4.1.0", "official_verdict", 116),
    ("v5.0", "5.0.0", "official_verdict", 131),
    ("v5.1", "5.1.0", "official_verdict", 155),
]


def _rows(oracle: Path, round_name: str) -> list[dict[str, str]]:
    if round_name == "v0.6":
        with open(DATA / "official_v0.6_verdicts.csv", newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(line for line in handle if not line.startswith("#")))
    return read_oracle(oracle, f"compliance_{round_name}.csv")


# today's official first errors on the v1.1 logs the era tool passed
WEIGHTS = "occurrence of 'weights_initialization' but found 0"
INITIALIZED = "s['initialized_tensors']"


def _differences(round_name: str) -> dict[str, dict[str, str]]:
    path = DATA / f"compliance_differences_{round_name}.yaml"
    entries = yaml.safe_load(path.read_text()) if path.exists() else None
    return {e["file"]: e for e in entries or []}


@pytest.mark.parametrize(("round_name", "ruleset", "column", "minimum"), ROUNDS)
def test_verdicts_equal_the_rounds_official(
    corpus: Path, oracle: Path, round_name: str, ruleset: str, column: str, minimum: int
) -> None:
    rows = _rows(oracle, round_name)
    assert len(rows) >= minimum
    differing = []
    for row in rows:
        path = corpus / round_name / row["file"]
        # --ruleset auto picks the same round from the corpus folder.
        assert choose(str(path)).ruleset == ruleset
        verdict = check_file(str(path), ruleset)
        ours = "pass" if verdict.passed else "fail"
        if "division" in row:
            assert verdict.division == row["division"], row["file"]
        if ours != row[column]:
            differing.append(f"{row['file']}: ours {ours}, {column} {row[column]}")
    assert not differing, "\n".join(differing)


@pytest.mark.parametrize(("round_name", "ruleset", "column", "minimum"), NEW_ROUNDS)
def test_new_rounds_verdicts_equal_the_official(
    corpus: Path, oracle: Path, round_name: str, ruleset: str, column: str, minimum: int
) -> None:
    rows = read_oracle(oracle, f"compliance_{round_name}.csv")
    assert len(rows) >= minimum
    listed = _differences(round_name)
    differing = []
    for row in rows:
        verdict = check_file(str(corpus / round_name / row["file"]), ruleset)
        ours = "pass" if verdict.passed else "fail"
        assert verdict.division == row["division"], row["file"]
        if ours != row[column] and row["file"] not in listed:
            differing.append(f"{row['file']}: ours {ours}, {column} {row[column]}")
    assert not differing, "\n".join(differing)


def test_v2_1_strict_is_todays_official_verdict(corpus: Path, oracle: Path) -> None:
    """4.1.68 fails closed v2.1 BERT logs for opt_lamb_epsilon (renamed after the round):
    ours warns (MLC110) and keeps the era verdict; --strict gives today's verdict."""
    warned = 0
    for row in read_oracle(oracle, "compliance_v2.1.csv"):
        if row["official_verdict"] == row["era_verdict"]:
            continue
        path = str(corpus / "v2.1" / row["file"])
        default = check_file(path, "2.1.0")
        assert default.passed and "MLC110" in {p.rule for p in default.problems}, row["file"]
        assert not check_file(path, "2.1.0", strict=True).passed
        assert "opt_lamb_epsilon" in row["first_error"]
        warned += 1
    assert warned >= 30


@pytest.mark.parametrize(
    ("round_name", "ruleset", "codes"),
    [("v0.7", "0.7.0", {"MLC040"}), ("v1.1", "1.1.0", {"MLC040"}), ("v2.0", "2.0.0", {"MLC040"})],
)
def test_official_failures_are_quality_targets(
    corpus: Path, oracle: Path, round_name: str, ruleset: str, codes: set[str]
) -> None:
    """Where the round's tool fails a log, ours fails it for the same reason, nothing more."""
    column = "era_verdict" if round_name == "v1.1" else "official_verdict"
    found: Counter[str] = Counter()
    for row in read_oracle(oracle, f"compliance_{round_name}.csv"):
        if row[column] != "fail":
            continue
        verdict = check_file(str(corpus / round_name / row["file"]), ruleset)
        found.update(p.rule for p in verdict.problems if p.is_error)
        assert any("eval_accuracy" in p.message for p in verdict.problems if p.is_error)
    assert set(found) == codes


def test_v1_1_differs_from_today_only_on_weights_initialization(corpus: Path, oracle: Path) -> None:
    """4.1.68 fails v1.1 logs the era tool passed: ours follows the era tool, and every such
    file fails today's tool on weights_initialization alone, which --strict promotes
    (docs/differences.md, "v1.1: we follow the era tool")."""
    differing = 0
    for row in read_oracle(oracle, "compliance_v1.1.csv"):
        path = str(corpus / "v1.1" / row["file"])
        default = check_file(path, "1.1.0")
        strict = check_file(path, "1.1.0", strict=True)
        ours = "pass" if default.passed else "fail"
        assert ("pass" if strict.passed else "fail") == row["official_verdict"], row["file"]
        assert ours == row["era_verdict"], row["file"]
        if ours == row["official_verdict"]:
            continue
        differing += 1
        assert (ours, row["official_verdict"]) == ("pass", "fail"), row["file"]
        assert WEIGHTS in row["first_error"] or INITIALIZED in row["first_error"], row["file"]
        relaxed = [p for p in default.problems if "weights_initialization" in p.message]
        assert relaxed and all(not p.is_error for p in relaxed)
        promoted = {p.rule for p in strict.problems if p.is_error and "weights_init" in p.message}
        assert promoted and promoted <= {"MLC010", "MLC041"}, row["file"]
    assert differing, "no v1.1 log differs: the comparison compared nothing"


def test_v0_6_failures_match_the_official_reasons(corpus: Path) -> None:
    """The official first message (warning or error) names a key our problems name too."""
    rows = _rows(Path(), "v0.6")
    for row in rows:
        verdict = check_file(str(corpus / "v0.6" / row["file"]), "0.6.0")
        assert not verdict.passed
        messages = " ".join(p.message for p in verdict.problems)
        first = row["first_message"]
        if row["official_crash"]:  # 'mask' is not a v0.6 benchmark name
            assert 'submission_benchmark is "mask"' in messages
        elif not mllog_check.parse_file(str(corpus / "v0.6" / row["file"])).records:
            # Not an MLPerf log at all (Alibaba's "MLPerf: resnet [...]" lines): MLC001
            # alone, where the official checker lists every key it lacks
            # (docs/differences.md, "Not a log").
            assert [p.rule for p in verdict.problems if p.is_error] == ["MLC001"]
        elif first.startswith("Required") or first.startswith("CHECK for"):
            key = first.split("'")[1]
            assert key in messages, (row["file"], first)


def test_accepted_differences_are_documented() -> None:
    docs = ROOT / "docs" / "differences.md"
    text = docs.read_text() if docs.exists() else ""
    assert "## Rounds v0.6–v2.0" in text
    for round_name, *_ in ROUNDS:
        for name in _differences(round_name):
            assert name.rsplit("/", 1)[0] in text, f"{name}: listed but not in docs/differences.md"


def test_v0_7_logs_outside_the_layout_fail_as_officially(corpus: Path) -> None:
    """Alibaba's v0.7 results/<system>/result_*.txt: `time_s` records; the official parser
    raises KeyError 'time_ms' (docs/differences.md). Not in the oracle's layout."""
    paths = sorted((corpus / "v0.7" / "Alibaba" / "results").glob("v100-*/result_*.txt"))
    assert len(paths) == 15
    for path in paths:
        verdict = check_file(str(path), "0.7.0")
        assert not verdict.passed
        assert "MLS004" in {p.rule for p in verdict.problems if p.is_error}


def test_v0_5_logs_get_parse_checks_only(corpus: Path) -> None:
    paths = sorted((corpus / "v0.5").rglob("result_*.txt"))
    assert len(paths) >= 75
    for path in paths:
        result = mllog_check.parse_file(str(path))
        verdict, found = check_chosen(result)
        assert (found.ruleset, found.source, found.round.has("rules")) == ("0.5.0", "folder", False)
        assert verdict.passed == result.ok
        assert not any(p.rule.startswith("MLC") for p in verdict.problems)
