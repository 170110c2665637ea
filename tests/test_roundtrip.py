"""Round trips: records written in each generation's syntax, with prefixes and noise
lines around them, parse back to equal records at the right line and column."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from parse_strategies import (
    Line,
    any_line,
    mll_lines,
    mllog_lines,
    mlp_lines,
    noise_lines,
    prefixes,
)

from mllog_check.parsing.scanner import scan_chunks
from mllog_check.records import Record

PATH = "<roundtrip>"


@st.composite
def logs(draw: st.DrawFn, lines: st.SearchStrategy[Line] = any_line) -> tuple[bytes, list[Record]]:
    """A log (bytes) and the records it must parse to."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    out: list[str] = []
    expected: list[Record] = []
    for _ in range(draw(st.integers(1, 6))):
        out.extend(draw(st.lists(noise_lines, max_size=3)))
        prefix, line = draw(prefixes), draw(lines)
        out.append(prefix + line.text)
        expected.append(Record(PATH, len(out), len(prefix) + 1, *line[1:]))
    out.extend(draw(st.lists(noise_lines, max_size=2)))
    text = newline.join(out) + draw(st.sampled_from(["", newline]))
    return text.encode("utf-8"), expected


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    """The same bytes in chunks cut anywhere (a stream's reads do not respect lines)."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def _check(log: tuple[bytes, list[Record]], cuts: list[int]) -> None:
    data, expected = log
    result = scan_chunks(_split(data, cuts), PATH)
    assert [p for p in result.problems if p.is_error] == []
    assert result.records == expected
    # == treats 1 and 1.0 as equal; the types must survive the round trip too.
    assert [repr(r) for r in result.records] == [repr(r) for r in expected]
    assert result.marker_lines == len(expected)


chunk_cuts = st.lists(st.integers(0, 10_000), max_size=4)


@settings(max_examples=150, deadline=None)
@given(logs(mllog_lines()), chunk_cuts)
def test_v07_mllog_records_round_trip(log: tuple[bytes, list[Record]], cuts: list[int]) -> None:
    _check(log, cuts)


@settings(max_examples=100, deadline=None)
@given(logs(mll_lines()), chunk_cuts)
def test_v06_mll_records_round_trip(log: tuple[bytes, list[Record]], cuts: list[int]) -> None:
    _check(log, cuts)


@settings(max_examples=100, deadline=None)
@given(logs(mlp_lines()), chunk_cuts)
def test_v05_mlp_records_round_trip(log: tuple[bytes, list[Record]], cuts: list[int]) -> None:
    _check(log, cuts)


@settings(max_examples=100, deadline=None)
@given(logs(), chunk_cuts)
def test_mixed_generations_round_trip(log: tuple[bytes, list[Record]], cuts: list[int]) -> None:
    _check(log, cuts)


def test_a_noise_line_that_looks_like_a_marker_is_an_error_not_a_record() -> None:
    # The strategies keep ":::ML" out of noise; this shows why: it is a marker line.
    result = scan_chunks([b"step 1 :::MLLOG-ish text\n"], PATH)
    assert result.records == [] and result.marker_lines == 1
    assert [p.rule for p in result.problems] == ["MLS001"]
