"""The relation language of the rule files (mllog_check/rules/expr.py) and its uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from mllog_check import parse_text
from mllog_check.records import Generation, Record
from mllog_check.rules import RulesetError, check_log, load_ruleset
from mllog_check.rules.examples import llama31_8b, stable_diffusion
from mllog_check.rules.expr import compile_expr, compile_test, references, render
from mllog_check.rules.occurrences import Occurrences


def _rec(key: str, value: object, metadata: dict | None = None) -> Record:  # type: ignore[type-arg]
    return Record("x", 1, 1, Generation.MLLOG, "", 0.0, "POINT_IN_TIME", key, value, metadata or {})


def test_arithmetic_and_references() -> None:
    warmup = _rec("opt_learning_rate_warmup_steps", 1000)
    decay = _rec("opt_learning_rate_decay_steps", 1199000)
    seen = {warmup.key: Occurrences(warmup), decay.key: Occurrences(decay)}
    test = compile_test({"eq": [{"this": "value"}, {"sub": [1200000, {"last": warmup.key}]}]})
    assert test(decay, seen)
    assert not test(decay._replace(value=1200000), seen)
    assert compile_expr({"ceil": {"div": [262144, 1000]}})(decay, seen) == 263
    assert compile_expr({"count": warmup.key})(decay, seen) == 1


def test_a_key_not_logged_before_fails_the_test() -> None:
    decay = _rec("opt_learning_rate_decay_steps", 1199000)
    test = compile_test({"eq": [{"this": "value"}, {"sub": [1200000, {"last": "warmup"}]}]})
    assert not test(decay, {decay.key: Occurrences(decay)})
    # the record itself is not "logged before" itself
    alone = {decay.key: Occurrences(decay)}
    assert not compile_test({"ge": [{"last": decay.key}, 0]})(decay, alone)


def test_last_and_count_see_the_records_before_the_one_checked() -> None:
    """A key's occurrences keep the last two records and a count: ``last`` and ``count``
    read what came before the record checked, as over the whole list of records."""
    first, second, third = (_rec("warmup", v) for v in (10, 20, 30))
    found = Occurrences(first)
    found.add(second)
    seen = {"warmup": found}
    last, count = compile_expr({"last": "warmup"}), compile_expr({"count": "warmup"})
    assert (last(second, seen), count(second, seen)) == (10, 1)  # checking the latest one
    assert (last(third, seen), count(third, seen)) == (20, 2)  # another key's record
    found.add(third)
    assert (last(third, seen), count(third, seen)) == (20, 2)
    assert (found.first, found.second, found.count) == (first, second, 3)


def test_python_meaning_of_operators() -> None:
    rec = _rec("k", True, {"samples_count": "12"})
    assert compile_test({"gt": [{"this": "value"}, 0]})(rec, {})  # True > 0
    assert not compile_test({"gt": [{"this": "metadata.samples_count"}, 0]})(rec, {})  # str > int
    assert compile_test({"eq": [{"int": {"this": "metadata.samples_count"}}, 12]})(rec, {})
    assert compile_test({"integer": {"this": "value"}})(rec, {})
    assert not compile_test({"integer": 1.5})(rec, {})
    assert not compile_test({"eq": [{"div": [1, 0]}, 0]})(rec, {})  # no exception escapes


def test_render_and_references() -> None:
    node = {"eq": [{"this": "value"}, {"sub": [1200000, {"last": "warmup"}]}]}
    assert render(node) == "value = (1200000 − warmup)"
    assert references(node) == ["warmup"]


def test_a_relation_failure_is_mlc051_at_the_record() -> None:
    text = llama31_8b({"opt_learning_rate_decay_steps": 1})
    verdict = check_log(parse_text(text, "x.txt"), "5.1.0")
    (problem,) = [p for p in verdict.problems if p.is_error]
    assert problem.rule == "MLC051" and problem.line > 0
    assert "1,200,000 − opt_learning_rate_warmup_steps" in problem.message


def test_aggregated_points_reach_the_nested_target() -> None:
    passing = check_log(parse_text(stable_diffusion(), "x.txt"), "4.1.0")
    assert passing.passed, passing.problems
    far = [
        {"samples_count": 512000, "FID": 120.0, "CLIP": 0.14},
        {"samples_count": 1024000, "FID": 95.0, "CLIP": 0.16},
    ]
    failing = check_log(parse_text(stable_diffusion(far), "x.txt"), "4.1.0")
    assert [p.rule for p in failing.problems if p.is_error] == ["MLC040"]


def test_copied_keys_survive_the_source_sections_removal() -> None:
    rules = load_ruleset("6.1.0")
    assert "closed_llama31_405b" not in rules.sections
    spec = rules.sections["closed_llama31_8b"].keys["max_sequence_length"]
    assert spec.value is not None and spec.value.ok(8192) and not spec.value.ok(4096)


def test_schema_refuses_an_unknown_operator(tmp_path: Path) -> None:
    path = tmp_path / "training-9.9.0.yaml"
    path.write_text(
        "ruleset: training-9.9.0\nextends: training-5.1.0\nsections:\n  common:\n    keys:\n"
        "      run_start:\n        checks:\n          - test: {exec: [1, 2]}\n",
        encoding="utf-8",
    )
    with pytest.raises(RulesetError):
        load_ruleset(str(path))


def test_python_numbers_from_v2_1() -> None:
    from mllog_check.rules.schema import compile_fragment

    positive = {"type": "number", "exclusiveMinimum": 0}
    assert not compile_fragment(positive).is_valid(True)  # JSON: a boolean is no number
    python = compile_fragment(positive, python=True)
    assert python.is_valid(True) and not python.is_valid(False) and not python.is_valid("1")
    assert compile_fragment({"const": 1.0}, python=True).is_valid(True)
    assert load_ruleset("2.1.0").params["python_numbers"] is True
    assert "python_numbers" not in load_ruleset("2.0.0").params
