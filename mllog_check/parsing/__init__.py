"""The parser: raw training output in, typed records and problems out."""

from __future__ import annotations

import io
from collections.abc import Iterator

from .. import syntax_codes as rules
from ..inputs import InputError, ReadState, Source, expand, open_binary, read_chunks
from ..problems import Problem
from ..records import ParseResult, Record
from .scanner import PROBLEM_LIMIT, Scanner, scan_blocks, scan_chunks

__all__ = [
    "RecordStream",
    "finish_parse",
    "iter_records",
    "parse_bytes",
    "parse_file",
    "parse_paths",
    "parse_source",
    "parse_text",
    "stream_paths",
]


def parse_source(source: Source, fast: bool = True) -> ParseResult:
    """Parse one file or stdin; an unreadable input gives a result with an input error.

    ``fast=False`` parses every marker line through the grammar only (for tests).
    """
    try:
        stream = open_binary(source)
    except InputError as err:
        result = ParseResult(path=source.display, input_error=True)
        result.problems.append(_input_problem(source.display, str(err)))
        return result
    state = ReadState()
    result = scan_chunks(read_chunks(stream, state), source.display, fast)
    _finish(result, state)
    return result


def parse_file(
    path: str | bytes | object, fast: bool = True, root: str | object | None = None
) -> ParseResult:
    """Parse a log file (plain or gzip) by path; with ``root``, a file that is not
    inside that tree (a link leaving it) is an input error, never read."""
    from pathlib import Path

    p = Path(str(path))
    tree = None if root is None else Path(str(root))
    return parse_source(Source(str(path), p, tree), fast)


def parse_bytes(data: bytes, path: str = "<bytes>", fast: bool = True) -> ParseResult:
    """Parse log bytes already in memory (plain, gzip or UTF-16, as for files)."""
    state = ReadState()
    result = scan_chunks(read_chunks(io.BytesIO(data), state), path, fast)
    _finish(result, state)
    return result


def parse_text(text: str, path: str = "<text>", fast: bool = True) -> ParseResult:
    """Parse log text already in memory."""
    return parse_bytes(text.encode("utf-8", "surrogateescape"), path, fast)


def parse_paths(paths: list[str]) -> Iterator[ParseResult]:
    """Parse files, directories (sorted walk) and '-' (stdin), one result per input."""
    sources, problems = expand(paths)
    yield from _unexpanded(problems)
    for source in sources:
        yield parse_source(source)


class RecordStream:
    """One input's records as they are read, never all held: memory stays bounded
    whatever the file's size.

    Iterate once; afterwards ``result`` holds what ``parse_source`` gives except the
    records (problems, marker and line counts, input error) and ``count`` how many
    records were yielded (``count + result.line_error_count == result.marker_lines``).
    """

    def __init__(self, source: Source, fast: bool = True) -> None:
        self.source = source
        self.fast = fast
        self.result = ParseResult(path=source.display)
        self.count = 0
        self._started = False

    def __iter__(self) -> Iterator[Record]:
        for batch in self.batches():
            yield from batch

    def batches(self) -> Iterator[list[Record]]:
        """The records a block of lines holds, list by list (``check`` walks them with a
        plain loop: a generator step per record costs a check time)."""
        if self._started:
            raise RuntimeError("a RecordStream is read once")
        self._started = True
        try:
            stream = open_binary(self.source)
        except InputError as err:
            self.result.input_error = True
            self.result.problems.append(_input_problem(self.source.display, str(err)))
            return
        state = ReadState()
        scanner = Scanner(self.source.display, self.fast)
        self.result = scanner.result
        records = scanner.result.records  # the scanner appends here; emptied per block
        for _ in scan_blocks(scanner, read_chunks(stream, state)):
            if records:
                batch = records[:]
                records.clear()
                self.count += len(batch)
                yield batch
        _finish(self.result, state)


def iter_records(path: str | object, fast: bool = True) -> RecordStream:
    """Records of a log file (plain or gzip) or '-' (stdin), as they are read."""
    from pathlib import Path

    text = str(path)
    source = Source("<stdin>", None) if text == "-" else Source(text, Path(text))
    return RecordStream(source, fast)


def stream_paths(paths: list[str]) -> Iterator[RecordStream | ParseResult]:
    """parse_paths, streaming: a ParseResult for a path that could not be expanded,
    a RecordStream (to iterate) for each input found."""
    sources, problems = expand(paths)
    yield from _unexpanded(problems)
    for source in sources:
        yield RecordStream(source)


def _unexpanded(problems: list[Problem]) -> Iterator[ParseResult]:
    """A ParseResult carrying the problem of each path that could not be expanded."""
    for problem in problems:
        result = ParseResult(path=problem.path, input_error=problem.is_error)
        result.problems.append(problem)
        yield result


def _input_problem(path: str, message: str) -> Problem:
    return rules.INPUT_ERROR.problem(path, message)


def finish_parse(result: ParseResult, state: ReadState) -> None:
    """The file-level findings once an input ended (``check --follow`` feeds lines itself)."""
    _finish(result, state)


def _finish(result: ParseResult, state: ReadState) -> None:
    """File-level findings, after the lines."""
    if state.error:
        # Line 0 (the file as a whole): a line number would make this error count as a
        # marker line in the invariant records + line errors == marker lines.
        result.input_error = True
        read = f"; the failure came after line {result.lines}" if result.lines else ""
        result.problems.append(_input_problem(result.path, state.error + read))
    if result.omitted or result.omitted_other:
        message = (
            f"{result.omitted + result.omitted_other:,} more problem(s) not listed "
            f"({result.omitted:,} line error(s) among them): at most "
            f"{PROBLEM_LIMIT:,} per log"
        )
        result.problems.append(rules.PROBLEMS_OMITTED.problem(result.path, message))
    if state.utf16:
        message = f"the file is {state.utf16} (byte-order mark); decoded as such"
        result.problems.append(rules.NOT_UTF8_FILE.problem(result.path, message))
    if result.marker_lines == 0 and not result.input_error:
        if result.bytes_read == 0:
            why = "the file is empty"
        elif state.nul_bytes:
            why = "binary data (NUL bytes) and no MLPerf marker"
        else:
            why = f"no MLPerf marker in {result.lines} line(s)"
        result.problems.append(rules.NO_RECORDS.problem(result.path, why))
    result.problems.sort()
