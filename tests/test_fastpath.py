"""The fast paths (inline MLLOG loop, MLL_FAST/MLP_FAST regexes + orjson) give exactly
what the grammar path (grammars/mllog.lark + Python's json) gives: same records, same
problems, on valid lines, on mutated near-valid lines and on the whole corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from parse_strategies import any_line, noise_lines, prefixes

from mllog_check import parse_bytes, parse_file
from mllog_check.records import ParseResult

# Characters that break JSON or the envelope in interesting ways.
TRICKY = [*list('{}[]":,. \t\\0-eE'), "\x00", "é", "\u2028", "\r", "Infinity", "NaN", "1e999"]


def _view(result: ParseResult) -> tuple[Any, ...]:
    """Everything a caller can see; repr keeps int/float and key order apart."""
    return (
        [repr(r) for r in result.records],
        [p.to_dict() for p in result.problems],
        result.marker_lines,
        result.lines,
    )


def _same(data: bytes) -> None:
    fast, slow = parse_bytes(data, fast=True), parse_bytes(data, fast=False)
    assert _view(fast) == _view(slow)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A valid line with a few edits: deletions, insertions, truncation, replacements."""
    text = draw(prefixes) + draw(any_line).text
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["delete", "insert", "truncate", "replace"]))
        if op == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 4)) :]
        elif op == "insert":
            text = text[:pos] + draw(st.sampled_from(TRICKY)) + text[pos:]
        elif op == "truncate":
            text = text[:pos]
        else:
            text = text[:pos] + draw(st.sampled_from(TRICKY)) + text[pos + 1 :]
    return text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(prefixes.flatmap(lambda p: any_line.map(lambda x: p + x.text)), noise_lines),
        min_size=1,
        max_size=5,
    )
)
def test_valid_lines_fast_equals_grammar(lines: list[str]) -> None:
    _same("\n".join(lines).encode("utf-8"))


@settings(max_examples=600, deadline=None)
@given(st.lists(mutated(), min_size=1, max_size=3), st.sampled_from(["utf-8", "latin-1"]))
@example([':::MLLOG {"key": "a", "time_ms": 1, "value": NaN, "metadata": {}}'], "utf-8")
@example([":::MLPv0.5.0 resnet 1 (x.py:1) opt_name: Infinity"], "utf-8")
@example([":::MLPv0.5.0 resnet 1 (x.py:1) opt_name: [1,"], "utf-8")
@example([':::MLL 1.5 key: {"value": 1e999}'], "utf-8")
@example([':::MLLOG {"key": "a", "time_ms": true, "value": 1, "metadata": {}}'], "utf-8")
@example(['0: :::MLLOG {"key": "a", "time_s": 1.5, "value": 1, "metadata": {}}'], "utf-8")
@example([':::MLLOG {"key": "a", "time_ms": "12", "value": 1}'], "utf-8")
@example([':::MLLOG  {"key": 3, "time_ms": 1, "value": 1, "metadata": {}}'], "utf-8")
@example([':::MLLOG ["a", 1]', ":::MLLOG null", ':::MLLOG "x"'], "utf-8")
def test_mutated_lines_fast_equals_grammar(lines: list[str], encoding: str) -> None:
    _same("\n".join(lines).encode(encoding, "replace"))


@pytest.mark.corpus
def test_corpus_fast_equals_grammar(corpus: Path) -> None:
    files = [p for p in sorted(corpus.rglob("*")) if p.is_file() and not p.is_symlink()]
    differ = [p for p in files if _view(parse_file(p)) != _view(parse_file(p, fast=False))]
    assert len(files) > 1000
    assert differ == []
