"""The direct fragment evaluator agrees with jsonschema on every fragment of the rule data."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mllog_check.rules import available_rulesets, load_ruleset
from mllog_check.rules import loader as rules_loader
from mllog_check.rules.schema import compile_fragment, equal, jsonschema_validator

KEYS = ["epoch_num", "BBOX", "SEGM", "status", "tensor", "epoch_count", "first_epoch_num"]


def _fragments() -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for name in available_rulesets():
        for section in load_ruleset(name).sections.values():
            for spec in section.keys.values():
                frags = [spec.value, spec.metadata, spec.target]
                frags += [a.fragment for a in spec.advisories]
                for frag in frags:
                    if frag is not None:
                        found[repr(frag.schema)] = frag.schema
    return [found[k] for k in sorted(found)]


FRAGMENTS = _fragments()


def _constants(schema: Any) -> list[Any]:
    """Values named in a schema (const, enum, bounds) and their neighbours."""
    out: list[Any] = []
    if isinstance(schema, dict):
        for key, arg in schema.items():
            if key == "const":
                out.append(arg)
            elif key == "enum":
                out.extend(arg)
            elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                out += [arg, arg + 1e-9, arg - 1e-9]
            elif key in ("xMultipleOf", "xPowerOfTwoTimes"):
                out += [arg["base"] * 3, arg["base"] * 4, arg["base"] * 3.5]
            out.extend(_constants(arg))
    elif isinstance(schema, list):
        for item in schema:
            out.extend(_constants(item))
    return out


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-10, 10_000)
    | st.floats(allow_nan=False)
    | st.text(max_size=3)
    | st.sampled_from(["", "success", "aborted", "lars", "sgd", "closed", "pre_rnn"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner),
    max_leaves=6,
)


_REFERENCE: dict[str, Any] = {}


def _reference(key: str, schema: dict[str, Any]) -> Any:
    if key not in _REFERENCE:
        _REFERENCE[key] = jsonschema_validator(schema)
    return _REFERENCE[key]


def test_every_fragment_of_the_data_uses_the_direct_evaluator() -> None:
    assert FRAGMENTS
    for schema in FRAGMENTS:
        assert type(compile_fragment(schema)).__name__ == "_Fast", schema


@pytest.mark.parametrize("schema", FRAGMENTS, ids=lambda s: repr(s)[:60])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_direct_evaluator_agrees_with_jsonschema(schema: dict[str, Any], data: Any) -> None:
    named = _constants(schema)
    choices = JSON | st.sampled_from(named) if named else JSON
    instance = data.draw(
        choices | st.lists(choices, max_size=3) | st.dictionaries(st.sampled_from(KEYS), choices)
    )
    fast = compile_fragment(schema).is_valid(instance)
    reference = _reference(repr(schema), schema).is_valid(instance)
    assert fast == reference, (schema, instance)


def test_equal_follows_json_not_python() -> None:
    assert equal(1, 1.0) and equal(math.inf, math.inf) and equal([1, {"a": 2}], [1.0, {"a": 2}])
    assert not equal(True, 1) and not equal(0, False) and not equal([1], (1,))


def test_unsupported_keyword_goes_to_jsonschema() -> None:
    schema = {"pattern": "^a"}
    assert type(compile_fragment(schema)).__name__ != "_Fast"
    assert compile_fragment(schema).is_valid("abc") and not compile_fragment(schema).is_valid("b")


def test_rule_files_are_validated_and_nothing_is_cached(tmp_path: Path, monkeypatch: Any) -> None:
    # No validated-rules cache under the home; shipped rounds come prepared
    # (schemas/prepared/, tests/test_prepared.py), a rule file given by path is validated.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = rules_loader.rules_dir() / "training-1.0.0.yaml"
    copy = tmp_path / "training-7.7.7.yaml"
    copy.write_text(
        source.read_text().replace("ruleset: training-1.0.0", "ruleset: training-7.7.7")
    )
    first = rules_loader._read(copy)
    assert not (tmp_path / "cache").exists() and rules_loader._read(copy) == first
    # A change is validated again: a broken file is refused.
    copy.write_text(copy.read_text().replace("occurs: exactly_one", "occurs: twice", 1))
    with pytest.raises(rules_loader.RulesetError, match="occurs"):
        rules_loader._read(copy)


def test_every_shipped_ruleset_compiles_every_section() -> None:
    """Sections compile on first use (docs/design.md); a shipped rule that cannot compile must
    still fail here, not in some submitter's check."""
    from mllog_check.rules import available_rulesets, load_ruleset

    compiled = 0
    for name in available_rulesets():
        for section in load_ruleset(name).sections.values():
            compiled += len(section.keys)
    assert compiled > 1000
