"""Every real log parses; v0.6+ record counts and key sequences equal the official parser's."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import read_oracle

from mllog_check import parse_file
from mllog_check.parsing.scanner import PROBLEM_LIMIT
from mllog_check.records import ParseResult

ORACLE_ROUNDS = [
    "v0.6",
    "v0.7",
    "v1.0",
    "v1.1",
    "v2.0",
    "v2.1",
    "v3.0",
    "v3.1",
    "v4.0",
    "v4.1",
    "v5.0",
    "v5.1",
    "hpc-v1.0",
    "hpc-v2.0",
    "hpc-v3.0",
]

# Files on which the official parser crashes (oracle column official_crash), so there is
# no count to compare; see docs/differences.md "## Parser". These v0.7 Alibaba logs write
# "time_s" instead of "time_ms": the official parser raises KeyError: 'time_ms', we give
# one MLS004 error per marker line and no records.
OFFICIAL_CRASHES = {
    ("v0.7", f"Alibaba/results/{system}/result_{n}.txt"): "KeyError: 'time_ms'"
    for system in ("v100-256", "v100-512", "v100-1280")
    for n in range(1, 6)
}


def _files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            yield path


def _keys_sha1(result: ParseResult) -> str:
    return hashlib.sha1("\n".join(result.keys()).encode("utf-8")).hexdigest()


@pytest.mark.corpus
def test_every_corpus_file_parses_and_keeps_the_count_invariant(corpus: Path) -> None:
    checked = 0
    for path in _files(corpus):
        result = parse_file(path)
        assert not result.input_error, (path, result.problems[:1])
        assert len(result.records) + result.line_error_count == result.marker_lines, path
        checked += 1
    assert checked > 1000  # the whole corpus, not an empty folder


@pytest.mark.corpus
@pytest.mark.parametrize("round_", ORACLE_ROUNDS)
def test_records_equal_the_official_parser(corpus: Path, oracle: Path, round_: str) -> None:
    rows = read_oracle(oracle, f"records_{round_}.csv")
    assert rows, round_
    crashes_seen = set()
    mismatches = []
    for row in rows:
        result = parse_file(corpus / round_ / row["file"])
        if row["official_crash"]:
            crashes_seen.add((round_, row["file"]))
            assert OFFICIAL_CRASHES.get((round_, row["file"])) == row["official_crash"]
            continue
        got = (len(result.records), _keys_sha1(result))
        want = (int(row["official_records"]), row["keys_sha1"])
        if got != want:
            mismatches.append((row["file"], got, want))
    assert mismatches == []
    assert crashes_seen == {k for k in OFFICIAL_CRASHES if k[0] == round_}


@pytest.mark.corpus
def test_time_s_files_give_one_mls004_per_marker_line(corpus: Path) -> None:
    for (round_, name), _crash in sorted(OFFICIAL_CRASHES.items()):
        result = parse_file(corpus / round_ / name)
        assert result.records == []
        errors = [p for p in result.problems if p.is_error]
        # The first PROBLEM_LIMIT are listed, the rest counted (docs/security.md).
        assert len(errors) == min(result.marker_lines, PROBLEM_LIMIT) > 0
        assert result.line_error_count == result.marker_lines
        assert {p.rule for p in errors} == {"MLS004"}
        assert "'time_s'" in errors[0].message
