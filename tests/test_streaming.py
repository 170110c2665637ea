"""Streaming: `parse` and iter_records yield records as they are read, never holding a
file's records; `check` holds one log's records at a time, not a directory's."""

from __future__ import annotations

import gzip
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check import inputs, iter_records, parse_bytes, parse_file
from mllog_check.cli import cli

GOOD = (FIXTURES / "check" / "closed_resnet_lars.pass.txt").read_bytes()
ERRORS = (FIXTURES / "parse" / "errors.txt").read_bytes()


def _peak(work: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def big_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """About 3 MB of real-shaped records read in 64 KiB chunks: many blocks, so that
    holding every record costs many times what one block does."""
    monkeypatch.setattr(inputs, "CHUNK", 1 << 16)
    path = tmp_path / "result_0.txt"
    path.write_bytes(GOOD * (3_000_000 // len(GOOD)))
    return path


def test_iter_records_equals_parse_file(tmp_path: Path) -> None:
    for data in (GOOD, ERRORS, gzip.compress(GOOD + ERRORS)):
        path = tmp_path / "log"
        path.write_bytes(data)
        held = parse_file(path)
        stream = iter_records(path)
        assert list(stream) == held.records
        assert stream.result.records == []  # nothing kept
        assert stream.result.problems == held.problems
        assert (stream.result.marker_lines, stream.result.lines) == (
            held.marker_lines,
            held.lines,
        )
        assert stream.count + stream.result.line_error_count == stream.result.marker_lines


@pytest.mark.corpus
def test_iter_records_on_a_real_log_and_an_unreadable_one(corpus: Path, tmp_path: Path) -> None:
    log = corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_merlin_hugectr/dlrm/result_0.txt"
    assert list(iter_records(log)) == parse_file(log).records
    missing = iter_records(tmp_path / "nope.txt")
    assert list(missing) == [] and missing.result.input_error
    assert missing.result.problems[0].rule == "MLS010"
    with pytest.raises(RuntimeError):
        list(missing)  # read once


def test_iterator_memory_is_bounded_by_a_block(big_log: Path) -> None:
    held = _peak(lambda: parse_file(big_log))
    streamed = _peak(lambda: sum(1 for _ in iter_records(big_log)))
    assert streamed * 5 < held, (streamed, held)


def test_parse_command_streams(big_log: Path) -> None:
    def run(*args: str) -> None:
        result = CliRunner().invoke(cli, ["parse", *args, str(big_log)])
        assert result.exit_code == 0, result.output

    held = _peak(lambda: parse_file(big_log))
    assert _peak(lambda: run("-q")) * 5 < held


def test_parse_command_output_unchanged_by_streaming(tmp_path: Path) -> None:
    """The same JSON lines as the records of parse_file, in order, across files."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(GOOD)
    b.write_bytes(ERRORS)
    out = CliRunner().invoke(cli, ["parse", str(a), str(b)])
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    assert len(lines) == len(parse_file(a).records) + len(parse_file(b).records)
    csv = CliRunner().invoke(cli, ["parse", "--format", "csv", str(a), str(b)]).stdout
    assert csv.count("\n") == len(lines) + 1 and csv.startswith("path,line,column,")


def test_check_holds_one_log_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inputs, "CHUNK", 1 << 16)
    one, many = tmp_path / "one", tmp_path / "many"
    # about 1 MB each: a compliant log with 8,000 trailer records before run_stop
    lines = GOOD.splitlines(keepends=True)
    stop = next(i for i, line in enumerate(lines) if b'"key": "run_stop"' in line)
    filler = lines[stop].replace(b'"run_stop"', b'"tracked_stats"', 1)
    body = b"".join(lines[:stop] + [filler] * 8000 + lines[stop:])
    for folder, count in ((one, 1), (many, 8)):
        folder.mkdir()
        for n in range(count):
            (folder / f"result_{n}.txt").write_bytes(body)

    def check(folder: Path) -> Callable[[], object]:
        return lambda: CliRunner().invoke(cli, ["check", str(folder)])

    check(one)()  # rules loaded and cached before measuring
    assert _peak(check(many)) < 2 * _peak(check(one))
    assert len(parse_bytes(body).records) > 8_000  # what one log's records weigh
