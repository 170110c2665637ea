"""The fast paths (inline MLLOG loop, MLL_FAST/MLP_FAST regexes + a fast JSON decoder)
give exactly what the grammar path (grammars/mllog.lark + Python's json) gives: same
records, same problems, on valid lines, on mutated near-valid lines and on the whole
corpus, with each fast decoder (orjson, and the strict json used for small inputs)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from parse_strategies import any_line, mll_lines, mllog_lines, mlp_lines, noise_lines, prefixes

from mllog_check import parse_bytes, parse_file
from mllog_check.parsing import decoders, scanner
from mllog_check.records import ParseResult

DECODERS = ("orjson", "strict json")


@contextmanager
def decoder(name: str) -> Iterator[None]:
    """Every block decoded by one fast decoder, whatever its size."""
    if name == "orjson":
        decoders.loads_for(decoders.SMALL)  # loads orjson
        chosen: Callable[[bytes], Any] | None = decoders._orjson_exact
    else:
        chosen = decoders.strict_loads
    with mock.patch.object(scanner, "loads_for", lambda size: chosen):
        yield


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
    slow = _view(parse_bytes(data, fast=False))
    for name in DECODERS:
        with decoder(name):
            assert _view(parse_bytes(data, fast=True)) == slow, name


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
# Integers beyond 64 bits (orjson would make them floats), surrogate escapes, overflow.
@example(
    [':::MLLOG {"key": "a", "time_ms": 1, "value": -9223372036854775809, "metadata": {}}'], "utf-8"
)
@example(
    [':::MLLOG {"key": "a", "time_ms": 18446744073709551617, "value": 1, "metadata": {}}'], "utf-8"
)
@example([':::MLL 1.5 key: {"value": 123456789012345678901234567890}'], "utf-8")
@example([":::MLPv0.5.0 resnet 1 (x.py:1) seed: 99999999999999999999999"], "utf-8")
@example(
    [':::MLLOG {"key": "\\ud800", "time_ms": 1, "value": "\\ud83d\\ude00", "metadata": {}}'],
    "utf-8",
)
@example([':::MLLOG {"key": "a", "time_ms": 1, "value": 1e400, "metadata": {}}'], "utf-8")
def test_mutated_lines_fast_equals_grammar(lines: list[str], encoding: str) -> None:
    _same("\n".join(lines).encode(encoding, "replace"))


@st.composite
def one_generation(draw: st.DrawFn) -> str:
    """Lines of one generation, bare or after a rank prefix, as most real logs are (the
    block paths of scanner._bulk), some edited, between noise lines, LF or CRLF."""
    lines = draw(st.sampled_from([mllog_lines(), mll_lines(), mlp_lines()]))
    texts = [line.text for line in draw(st.lists(lines, min_size=2, max_size=6))]
    if draw(st.booleans()):  # rank prefixes (multi-node logs), now and then a non-ASCII one
        some = st.sampled_from(["", "0: ", " 1: ", "[0] ", "é: "])
        texts = [draw(some) + text for text in texts]
    for _ in range(draw(st.integers(0, 2))):
        i = draw(st.integers(0, len(texts) - 1))
        pos = draw(st.integers(0, len(texts[i])))
        texts[i] = texts[i][:pos] + draw(st.sampled_from([*TRICKY, "}", ",", " :::MLL"]))
        texts[i] += texts[i][pos + draw(st.integers(0, 2)) :] if draw(st.booleans()) else ""
    texts += draw(st.lists(noise_lines, max_size=2))
    return draw(st.sampled_from(["\n", "\r\n"])).join(texts)


@settings(max_examples=400, deadline=None)
@given(one_generation())
# No payload may pair with another: decoded as one array, these would be three records.
@example(
    ':::MLLOG {"key": "b", "time_ms": 2, "value": 1, "metadata": {}},'
    '{"key": "c", "time_ms": 3, "value": 1, "metadata": {}}\n'
    ':::MLLOG {"key": "a", "time_ms": 1, "value": [{}\n:::MLLOG {}], "metadata": {}}\n'
)
@example(':::MLLOG 1,2\n:::MLLOG "x\n:::MLLOG 1"')
@example(
    '0: :::MLLOG {"key": "a", "time_ms": 1, "value": 1, "metadata": {}}\n'
    'é :::MLLOG {"key": "b", "time_ms": 2, "value": 1, "metadata": {}}\n'
)
@example(
    '12: :::MLLOG {"key": "a", "time_ms": 1, "value": 1, "metadata": {}}\r\n'
    '3: :::MLLOG {"key": "b", "time_s": 2, "value": 1}\r\n'
    '3: :::MLLOG  {"key": "c", "time_ms": 2, "value": 1, "metadata": {}}\r\n'
)
@example(':::MLL 1 a: {"value": 1}\n:::MLL 2 b: {"value": 2},{"value": 3}\n:::MLL 3 c: [')
@example(":::MLPv0.5.0 r 1 (x.py:1) a: [1\n:::MLPv0.5.0 r 1 (x.py:1) b: 2]")
@example(":::MLPv0.5.0 r 1 (x.py:1) a: nesterov\n:::MLPv0.5.0 r 1 (x.py:1) b: true")
@example(":::MLPv0.5.0 r 1 (x\n:::MLPv0.5.0 r 1 (x.py:1) b: 1")
def test_one_generation_blocks_fast_equals_grammar(text: str) -> None:
    _same(text.encode("utf-8"))


def test_bad_lines_past_the_problem_limit_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past PROBLEM_LIMIT problems a line's problem is counted, not made: the records,
    the listed problems and the counts are those of a parse without the limit, cut."""
    bad = ':::MLLOG {"key": "a", "time_s": 1.5, "value": 1, "metadata": {}}'
    good = ':::MLLOG {"key": "a", "time_ms": 1, "value": 1, "metadata": {}}'
    limit = scanner.PROBLEM_LIMIT
    data = "\n".join(bad if i % 3 else good for i in range(3 * limit)).encode()
    for name in DECODERS:
        with decoder(name):
            limited = parse_bytes(data)
            with monkeypatch.context() as patch:
                patch.setattr(scanner, "PROBLEM_LIMIT", 10 * limit)
                whole = parse_bytes(data)
        assert limited.records == whole.records, name
        assert len(whole.problems) == 2 * limit, name
        listed = [p for p in limited.problems if p.name != "problems-omitted"]
        assert listed == whole.problems[:limit], name
        assert (limited.omitted, limited.omitted_other) == (limit, 0), name
        assert limited.error_count == whole.error_count, name


@pytest.mark.corpus
def test_corpus_fast_equals_grammar(corpus: Path) -> None:
    files = [p for p in sorted(corpus.rglob("*")) if p.is_file() and not p.is_symlink()]
    slow = {p: _view(parse_file(p, fast=False)) for p in files}
    assert len(files) > 1000
    for name in DECODERS:
        with decoder(name):
            differ = [p for p in files if _view(parse_file(p)) != slow[p]]
        assert differ == [], name


def test_long_fractions_stay_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real logs print float32 values in full (v5.1 llama2_70b_lora: 2.0311331748962402...):
    only integers of 19+ digits are refused, or such a log would load lark per line."""

    def refuse(*args: object) -> None:
        raise AssertionError("grammar path taken")

    monkeypatch.setattr(scanner.Scanner, "_slow", refuse)
    payload = (
        '{"key": "a", "time_ms": 1, "value": {"loss": 2.0311331748962402343750}, "metadata": {}}'
    )
    for name in DECODERS:
        with decoder(name):
            for text in (f":::MLLOG {payload}", f"0: :::MLLOG {payload}"):
                result = parse_bytes((text + "\n").encode())
                assert result.records[0].value == {"loss": 2.0311331748962402}, name


@pytest.mark.corpus
def test_system_names_with_an_e_and_digits_stay_on_the_fast_path(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dell's system names (XE8640, XE9680) and build hashes in file names (v1.1 Google:
    ``...997e114...``) hold digits, an "e" and three digits inside a string: not an
    exponent. Was: every such line sent to the grammar path, tripling a small log's
    check (and the LALR tables built for it). A number that overflows still is."""
    shapes = {"system name": r'"[^"]*XE\d{4}', "digits e digits": r'"[^"]*\d[eE]\d{3}[^"]*"'}
    lines = []
    for what, pattern in shapes.items():
        found = list(
            itertools.islice(
                (
                    line
                    for path in sorted(corpus.glob("*/*/results/*/*/result_*.txt"))
                    for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
                    if ":::MLLOG" in line and re.search(pattern, line)
                ),
                20,
            )
        )
        assert found, f"no corpus log holds a {what} in a string"
        lines += found

    def refuse(*args: object) -> None:
        raise AssertionError("grammar path taken")

    with monkeypatch.context() as patched:
        patched.setattr(scanner.Scanner, "_slow", refuse)
        with decoder("strict json"):
            result = parse_bytes(("\n".join(lines) + "\n").encode())
    assert len(result.records) == len(lines)
    for number in (b"1e400", b"-2.5E+308", b"1e309"):
        with pytest.raises(decoders.DecodeError):
            decoders.strict_loads(b'{"value": ' + number + b"}")
    assert decoders.strict_loads(b'{"value": 1e308}') == {"value": 1e308}
