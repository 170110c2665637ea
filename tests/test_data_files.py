"""Round data files lose nothing silently: repeated keys, unregistered codes and RCP data
that disagrees with the round registry are refused when the data is loaded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from mllog_check import rounds
from mllog_check.datafiles import DataFileError, load_json, load_yaml, merge_named
from mllog_check.results import compute_scores
from mllog_check.results.rcp import coverage, load_rcp
from mllog_check.rules import load_ruleset
from mllog_check.rules.loader import RulesetError

SCHEMAS = ROOT / "schemas"
DATA_FILES = sorted(
    p for p in SCHEMAS.rglob("*") if p.suffix in (".yaml", ".json") and "prepared" not in p.parts
)


def test_every_data_file_states_each_key_once() -> None:
    assert len(DATA_FILES) > 50
    for path in DATA_FILES:
        (load_yaml if path.suffix == ".yaml" else load_json)(path)


def test_a_repeated_key_is_refused_with_its_line(tmp_path: Path) -> None:
    # The v6.1 flux1 rule as it was: YAML kept the second `checks:` and lost the first.
    rule = tmp_path / "rule.yaml"
    rule.write_text("global_batch_size:\n  checks: [1]\n  checks: [2]\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"line 3, column 3: duplicate key 'checks'"):
        load_yaml(rule)
    data = tmp_path / "data.json"
    data.write_text('{"benchmarks": {"a": 1, "a": 2}}', encoding="utf-8")
    with pytest.raises(DataFileError, match="duplicate key 'a'"):
        load_json(data)
    # YAML merge keys ("<<") and anchors are not repeats.
    rule.write_text("a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n", encoding="utf-8")
    assert load_yaml(rule) == {"a": {"b": 1}, "c": {"b": 1, "d": 2}}


def test_a_rule_file_with_a_repeated_key_is_refused(tmp_path: Path) -> None:
    source = (SCHEMAS / "rules" / "training-6.1.0.yaml").read_text(encoding="utf-8")
    broken = source.replace(
        '          - {test: {ge: [{this: value}, 0]}, says: "≥ 0"}\n',
        "          - {test: {ge: [{this: value}, 0]}}\n        checks:\n",
    )
    assert broken != source
    path = tmp_path / "training-6.1.0-copy.yaml"
    path.write_text(broken.replace("ruleset: training-6.1.0", "ruleset: training-7.7.1"))
    with pytest.raises(RulesetError, match="duplicate key 'checks'"):
        load_ruleset(str(path))


def test_flux1_global_batch_size_keeps_both_official_checks() -> None:
    """Official 6.1.0 closed_flux1: CHECK v >= 0, then a POST dividing by the value."""
    spec = load_ruleset("6.1.0").sections["closed_flux1"].keys["global_batch_size"]
    assert [c.says for c in spec.checks] == [
        "≥ 0",
        "a non-zero number (the evaluation interval is derived from it)",
    ]


def test_the_registry_refuses_a_repeated_key(tmp_path: Path) -> None:
    text = (SCHEMAS / "rounds.yaml").read_text(encoding="utf-8")
    path = tmp_path / "rounds.yaml"
    path.write_text(text.replace("  unet3d: 4\n", "  unet3d: 4\n  unet3d: 5\n", 1))
    with pytest.raises(rounds.RegistryError, match="duplicate key 'unet3d'"):
        rounds.load_registry(path)


@pytest.mark.parametrize("field", ["warn_as: MLC199", "warn_as: MLC010"])
def test_an_unregistered_or_official_warn_as_code_is_refused_at_load(
    tmp_path: Path, field: str
) -> None:
    path = tmp_path / "training-7.7.2.yaml"
    path.write_text(
        "ruleset: training-7.7.2\nextends: training-1.0.0\nsections:\n  common:\n    keys:\n"
        f"      init_start: {{occurs: exactly_one, {field}}}\n",
        encoding="utf-8",
    )
    # MLC010 is registered but an error code: the schema refuses it; MLC199 is not registered.
    with pytest.raises(RulesetError, match=r"MLC199 is not a registered|warn_as"):
        load_ruleset(str(path))


def test_every_rounds_rcp_benchmarks_are_the_registrys() -> None:
    checked = [r for r in rounds.all_rounds() if r.path("rcp") is not None]
    assert len(checked) >= 11
    for rnd in checked:
        assert coverage(rnd.version) == [], rnd.version
        have = set(load_rcp(str(rnd.path("rcp")))["benchmarks"])
        assert have == {b.name for b in (rnd.benchmarks or {}).values() if b.rcp}


def test_merge_refuses_an_unknown_removal() -> None:
    assert merge_named({"a": {"x": 1}}, {"a": {"y": 2}}, None, "f", update=True) == {
        "a": {"x": 1, "y": 2}
    }
    assert merge_named({"a": 1, "b": 2}, {"c": 3}, ["a"], "f") == {"b": 2, "c": 3}
    with pytest.raises(DataFileError, match="removes 'gone', which it does not inherit"):
        merge_named({"a": 1}, None, ["gone"], "f")


ROUND = """
  - version: 9.2.0
    generation: mllog
    run_count: exact
    benchmarks: {resnet: 5, bert: 10}
    files: {rules: rules/training-1.0.0.yaml, system_description: system_description/v1.0.json}
"""


@pytest.fixture
def round_9_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Round 9.2.0 (v1.0's rules) with its own scoring and, if written, RCP file."""
    data = tmp_path / "data"
    (data / "scoring").mkdir(parents=True)
    (data / "rcp").mkdir()
    text = (SCHEMAS / "rounds.yaml").read_text(encoding="utf-8")
    (data / "rounds.yaml").write_text(text + ROUND, encoding="utf-8")
    (data / "scoring" / "v9.2.yaml").write_text("extends: v1.0\nround: v9.2\nruleset: 9.2.0\n")
    monkeypatch.setenv(rounds.ENV_REGISTRY, str(data / "rounds.yaml"))
    rounds.reload()
    yield data
    monkeypatch.delenv(rounds.ENV_REGISTRY)
    rounds.reload()


def _score(case: str) -> tuple[str, list[str]]:
    report = compute_scores([str(FIXTURES / "score" / case)], ruleset="9.2.0")
    (score,) = report.scores
    return score.reason, [f"{p.rule} {p.message}" for p in report.problems]


def test_rcp_data_inherits_and_a_benchmark_without_an_entry_gets_a_note(round_9_2: Path) -> None:
    rcp = round_9_2 / "rcp" / "training_9.2.0.json"
    rcp.write_text(json.dumps({"extends": "1.0.0", "ruleset": "9.2.0", "remove": ["resnet"]}))
    merged = load_rcp(str(rcp))
    assert merged["ruleset"] == "9.2.0" and "resnet" not in merged["benchmarks"]
    assert merged["benchmarks"]["bert"] == load_rcp("training_1.0.0")["benchmarks"]["bert"]
    assert coverage("9.2.0")[0] == "round 9.2.0: no RCP data for resnet"
    reason, problems = _score("rcp_pass")
    assert "RCP not checked: round 9.2.0's RCP data has no entry for resnet" in reason
    assert not any(p.startswith("MLS010") for p in problems)


def test_rcp_data_removing_what_it_does_not_inherit_is_refused(round_9_2: Path) -> None:
    rcp = round_9_2 / "rcp" / "training_9.2.0.json"
    rcp.write_text(json.dumps({"extends": "1.0.0", "remove": ["resnett"]}))
    with pytest.raises(DataFileError, match="removes 'resnett'"):
        load_rcp(str(rcp))


def test_a_missing_rcp_file_is_an_input_error_not_a_pass(round_9_2: Path) -> None:
    """docs/rounds.md: data named but missing from the build is exit 2, never a pass."""
    from click.testing import CliRunner

    from mllog_check.cli import cli

    reason, problems = _score("rcp_pass")
    assert "RCP not checked: round 9.2.0 has no rcp data in this build" in reason
    assert any(p.startswith("MLS010 RCP not checked") for p in problems)
    result = CliRunner().invoke(
        cli, ["score", "--ruleset", "9.2.0", str(FIXTURES / "score" / "rcp_pass")]
    )
    assert result.exit_code == 2, result.output


def test_every_kind_of_round_data_has_a_json_schema_that_every_file_meets() -> None:
    from jsonschema import Draft202012Validator

    from mllog_check.datafiles import validate
    from mllog_check.rules.loader import _read
    from mllog_check.submission.sysdesc import round_schema

    scoring = sorted((SCHEMAS / "scoring").glob("v*.yaml"))
    rcp = sorted((SCHEMAS / "rcp").glob("training_*.json"))
    assert len(scoring) >= 14 and len(rcp) >= 12
    for path in scoring:
        validate(load_yaml(path), SCHEMAS / "scoring" / "scoring.schema.json", path)
    for path in rcp:
        validate(load_json(path), SCHEMAS / "rcp" / "rcp.schema.json", path)
    for path in sorted((SCHEMAS / "rules").glob("training-*.yaml")):
        _read(path)  # validated against ruleset.schema.json
    for rnd in rounds.all_rounds():  # a system schema is a JSON Schema once merged
        if rnd.path("system_description") is not None:
            Draft202012Validator.check_schema(round_schema(rnd.version))


def test_scoring_and_rcp_data_breaking_their_schema_are_refused(round_9_2: Path) -> None:
    from mllog_check.results.scoring import ScoringDataError, scoring_for

    (round_9_2 / "scoring" / "v9.2.yaml").write_text(
        "extends: v1.0\nbenchmarks:\n  resnet: {runs: 5, target: {min: 0.759}}\n"
    )
    with pytest.raises(ScoringDataError, match=r"resnet: Additional properties.*'runs'"):
        scoring_for("9.2.0")
    rcp = round_9_2 / "rcp" / "training_9.2.0.json"
    rcp.write_text(json.dumps({"extends": "1.0.0", "benchmarks": {"resnet": {"unit": "hours"}}}))
    with pytest.raises(DataFileError, match="benchmarks/resnet: 'references' is a required"):
        load_rcp(str(rcp))


def test_round_policies_are_registry_data() -> None:
    """What the official tools check from a round on is stated in schemas/rounds.yaml."""
    first = {
        policy: next(r.version for r in rounds.all_rounds() if r.policies.get(policy))
        for policy in rounds.parse_round("6.1").policies
    }
    assert first == {
        "system_description_checked": "1.0.0",
        "system_status_checked": "4.1.0",
        "seeds_checked": "1.0.0",
        "seeds_always": "5.0.0",
        "power_folder": "4.0.0",
        "repo_checked": "2.0.0",  # the verify script's repo_checker (docs/package.md)
        "orgs_at_top": "0.6.0",  # v0.5 nests its submission folders (docs/scores.md)
    }
    assert not rounds.parse_round("0.7").applies("seeds_checked")
    with pytest.raises(rounds.RegistryError, match="no policy 'seeds_sometimes'"):
        rounds.parse_round("5.0").applies("seeds_sometimes")


def test_no_round_threshold_in_the_code() -> None:
    """Round policy lives in the registry: no version tuple compared in mllog_check/."""
    import re

    threshold = re.compile(r"[<>]=?\s*\(\d+,\s*\d+\)|_FROM\s*=\s*\(\d")
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "mllog_check").rglob("*.py"))
        if threshold.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_each_quality_target_is_stated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scoring file states a bound only where the round's rules do not give it: taking
    any stated bound away changes some round's target (rule_target gives the rest)."""
    import copy

    from mllog_check.results import scoring

    read = scoring._read
    files = {
        r.version: read(r.version) for r in rounds.all_rounds() if r.path("scoring") is not None
    }
    edited: dict[str, dict[str, object]] = {}
    monkeypatch.setattr(scoring, "_read", lambda name: copy.deepcopy(
        edited.get(rounds.parse_round(name).version) or files[rounds.parse_round(name).version]
    ))  # fmt: skip

    def targets() -> dict[str, dict[str, object]]:
        scoring._scoring.cache_clear()  # scoring_for reads through it
        return {
            v: {b: s.target for b, s in scoring.scoring_for(v).benchmarks.items()} for v in files
        }

    reference = targets()
    assert reference["1.0.0"]["bert"] == {"min": 0.72, "above": 0.0, "below": 1.0}
    assert reference["6.1.0"]["qwen35_397b_grpo"] == {"above": 0.69, "max": 1.0}
    stated = 0
    for version, data in files.items():
        for bench, spec in (data.get("benchmarks") or {}).items():
            for kind, value in ((spec or {}).get("target") or {}).items():
                if value is None:
                    continue
                stated += 1
                trial = copy.deepcopy(data)
                del trial["benchmarks"][bench]["target"][kind]
                edited[version] = trial
                try:
                    changed = targets() != reference
                except scoring.ScoringDataError:  # a target left with no bound at all
                    changed = True
                assert changed, f"{version} {bench} {kind}: the rules state it already"
                edited.clear()
    scoring._scoring.cache_clear()  # scoring_for reads through it
    assert stated > 10


def test_a_data_file_is_read_without_allocating_its_limit(tmp_path: Path) -> None:
    """read(n) allocates n bytes at once: every shipped file read with the 64 MiB limit
    cost 64 MiB of memory each. A file is read at its size; one over the limit is still
    refused, and one exactly at it is read whole."""
    import tracemalloc

    from mllog_check.datafiles import DATA_FILE_LIMIT, read_text

    small = tmp_path / "small.json"
    small.write_text('{"key": 1}')
    tracemalloc.start()
    try:
        assert read_text(small) == '{"key": 1}'
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < DATA_FILE_LIMIT // 64, peak
    sized = tmp_path / "sized.txt"
    sized.write_text("x" * 100)
    assert len(read_text(sized, limit=100)) == 100
    with pytest.raises(OSError, match="larger than 99 bytes"):
        read_text(sized, limit=99)
