"""The hot loop: find marker lines in a byte stream and turn each into a Record or a Problem.

Lines without a marker never reach Python-level work beyond ``bytes.find``. A marker
line takes the fast path when it is well formed (a regex equivalent to the grammar
for its generation, plus a fast JSON decoder, ``decoders.py``); anything else goes through the
grammar (grammars/mllog.lark) and Python's json, which explain what is wrong.
``tests/test_fastpath.py`` proves the two paths agree (hypothesis + the corpus).
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import compress, count, repeat
from operator import itemgetter

from .. import syntax_codes as rules
from ..problems import Severity, shorten
from ..records import Generation, ParseResult, Record
from .decoders import DecodeError, decode_each, loads_for
from .grammar import EnvelopeError, parse_envelope
from .payload import LineError, _mllog_record, build_record, line_problem

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    from ..records import Metadata

_CANDIDATE = b":::ML"
_MLLOG_PREFIX = b":::MLLOG "
_MLLOG_MARKER = b":::MLLOG"
_MLL_MARKER = b":::MLL"
_MLP_MARKER = b":::MLPv"

# Fast-path forms of the grammar's mll_record and mlp_record (same terminals).
_SECONDS = rb"(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)"
_NAME = rb"([A-Za-z_][A-Za-z0-9_.\-]*)"
_PAYLOAD = rb"([^ \t\r\n][^\r\n]*)"
MLL_FAST = rb":::MLL[ \t]+" + _SECONDS + rb"[ \t]+" + _NAME + rb"[ \t]*:[ \t]*" + _PAYLOAD
MLP_FAST = (
    rb":::MLPv\d+\.\d+\.\d+[ \t]+" + _NAME + rb"[ \t]+" + _SECONDS + rb"[ \t]+\(([^)]*):(\d+)\)"
    rb"[ \t]*" + _NAME + rb"[ \t]*(?::[ \t]*" + _PAYLOAD + rb"?)?"
)


@cache
def _compiled(pattern: bytes) -> re.Pattern[bytes]:
    """Compiled when first needed: v0.7+ logs (most) never need the older forms, and a
    single-file check's start-up pays for every compile (docs/design.md)."""
    return re.compile(pattern)


# First bytes of a JSON text that the fast decoders may accept (whitespace, object,
# array, string, number, true/false/null); anything else is not JSON for them.
_JSON_START = frozenset(b' \t{["-0123456789tfn')
_NOT_JSON = object()  # "did not decode" / "absent", where None is a JSON value
_new = tuple.__new__
# The JSON fields of a :::MLLOG record in Record's field order.
_PICK_FIELDS = itemgetter("namespace", "time_ms", "event_type", "key", "value", "metadata")
_MLP = Generation.MLP  # Record(...) through NamedTuple.__new__ costs a Python-level call

# A v0.5 value that is not JSON: a bare word such as "adam" (but not a JSON constant).
_BARE_WORD = rb"(?!(?:Infinity|-Infinity|NaN)\b)[A-Za-z_][^{}\[\]\"]*"

# What one log may cost (docs/security.md). A line longer than MAX_LINE bytes is read in
# chunks, looked at for a marker and not parsed (a marker line is then one line error);
# memory stays under MAX_LINE plus one chunk. At most PROBLEM_LIMIT problems are listed
# per log; the rest are counted, and once PROBLEM_LIMIT errors are listed, a marker line
# the fast path refuses counts as one more error without the grammar path (a log of a
# million bad lines costs seconds, not minutes).
MAX_LINE = 8 << 20
PROBLEM_LIMIT = 1000


def last_marker(segment: bytes) -> tuple[int, Generation | None]:
    """Position and generation of the record's marker in a segment.

    The official parsers strip everything up to the *last* occurrence of their
    generation's token (``re.sub(".*" + TOKEN, TOKEN, line)``). A line is read as the
    newest generation whose marker it holds, so a :::MLLOG record whose JSON mentions
    ":::MLL" or ":::MLLOG" (no space) stays a record, as for the official v0.7+ parser.
    """
    pos = segment.rfind(_MLLOG_PREFIX)  # the official v0.7+ token includes the space
    if pos == -1:
        pos = segment.rfind(_MLLOG_MARKER)  # ":::MLLOG{": reported as a bad envelope
    if pos != -1:
        return pos, Generation.MLLOG
    pos = segment.rfind(_MLL_MARKER)
    if pos != -1:
        return pos, Generation.MLL
    pos = segment.rfind(_MLP_MARKER)
    if pos != -1:
        return pos, Generation.MLP
    return -1, None


class Scanner:
    """Accumulates one input's records and problems; fed whole lines (without LF).

    ``fast=False`` sends every marker line through the grammar path only: the
    reference against which tests/test_fastpath.py checks the fast paths.
    """

    def __init__(self, path: str, fast: bool = True) -> None:
        self.path = path
        self.fast = fast
        self.result = ParseResult(path=path)
        self._records = self.result.records
        self._problems = self.result.problems
        self.loads = loads_for(0)  # _scan_block sets it per block (decoders.py)
        self._errors = 0  # errors among self._problems[: self._tallied]
        self._tallied = 0

    def line(self, line: bytes, line_no: int) -> None:
        """One physical line that contains the candidate marker text."""
        if b"\r" in line:
            # CR separates lines for the official tools (universal newlines) and for
            # terminals (progress bars): each CR-separated segment is parsed on its own.
            # Columns count characters before each segment as it goes (not the whole
            # prefix again per segment: 300,000 segments were quadratic).
            offset = 0
            chars = None if line.isascii() else 0
            for segment in line.split(b"\r"):
                if _CANDIDATE in segment:
                    self._segment(line, segment, offset, line_no, chars)
                offset += len(segment) + 1
                if chars is not None:
                    chars += len(segment.decode("utf-8", "replace")) + 1
        else:
            self._segment(line, line, 0, line_no)

    def _segment(
        self, line: bytes, segment: bytes, seg_offset: int, line_no: int, chars: int | None = -1
    ) -> None:
        """``chars``: characters before the segment (None: the line is ASCII; -1: count)."""
        pos, generation = last_marker(segment)
        if generation is None:
            return
        self.result.marker_lines += 1
        start = seg_offset + pos
        if start == 0 or chars is None or (chars == -1 and line[:start].isascii()):
            column = start + 1
        elif chars >= 0:
            column = chars + len(segment[:pos].decode("utf-8", "replace")) + 1
        else:
            column = len(line[:start].decode("utf-8", "replace")) + 1
        record = self._fast(segment[pos:], generation, line_no, column) if self.fast else None
        if record is None:
            self._slow(line, segment[pos:], start, line_no, column)
        else:
            self._records.append(record)

    def _fast(
        self, text: bytes, generation: Generation, line_no: int, column: int
    ) -> Record | None:
        try:
            if generation is Generation.MLLOG:
                if not text.startswith(_MLLOG_PREFIX):
                    return None
                data = self.loads(text[9:])
                if type(data) is not dict:
                    return None
                key = data.get("key")
                time_ms: Any = data.get("time_ms")
                metadata = data.get("metadata")
                if (
                    type(key) is not str
                    or type(time_ms) not in (int, float)
                    or type(metadata) is not dict
                    or "value" not in data
                ):
                    return None
                return Record(
                    self.path,
                    line_no,
                    column,
                    generation,
                    data.get("namespace"),
                    time_ms,
                    data.get("event_type"),
                    key,
                    data["value"],
                    metadata,
                )
            if generation is Generation.MLL:
                return self._fast_mll(text, line_no, column)
            return self._fast_mlp(text, line_no, column)
        except DecodeError:
            return None

    def mllog_checked(self, data: Any, line: bytes, pos: int, line_no: int) -> None:
        """A :::MLLOG payload that the fast decoder decoded but the inline test refused (a field
        missing or of another type, not an object): the grammar path's own checks
        (payload._mllog_record) on the decoded value, without lark. The payload starts
        right after ":::MLLOG " (the caller makes sure), as the grammar would find it."""
        text = line[pos + 9 :].decode()  # the decoder accepted it: valid UTF-8
        try:
            record = _mllog_record(data, self.path, line_no, pos + 1, pos + 9, text, self._problems)
        except LineError as err:
            if len(self._problems) >= PROBLEM_LIMIT:
                self._unlisted(err.rule.severity)
                return
            self._problems.append(
                line_problem(err, self.path, line_no, err.offset + 1, line[pos:].decode())
            )
        else:
            self._records.append(record)

    def _unlisted(self, severity: Severity) -> None:
        """A line's problem past PROBLEM_LIMIT listed ones: trim_problems would drop it
        at the block's end, so it is counted as trim_problems and full() would count it,
        without being made (what a log of a million bad lines costs)."""
        if severity is Severity.ERROR:
            self._errors += 1
            self.result.omitted += 1
        else:
            self.result.omitted_other += 1

    def _fast_mll(self, text: bytes, line_no: int, column: int) -> Record | None:
        """A well-formed v0.6 record (MLL_FAST + JSON), else None for the grammar path."""
        match = _compiled(MLL_FAST).fullmatch(text)
        if match is None:
            return None
        seconds, key, payload = match.groups()
        try:
            data = self.loads(payload)
        except DecodeError:
            return None
        if type(data) is not dict or "value" not in data:
            return None
        metadata = data.get("metadata")
        return _new(
            Record,
            (
                self.path,
                line_no,
                column,
                Generation.MLL,
                None,
                float(seconds) * 1000.0,
                None,
                key.decode(),
                data["value"],
                metadata if type(metadata) is dict else {},
            ),
        )

    def _fast_mlp(self, text: bytes, line_no: int, column: int) -> Record | None:
        """A well-formed ASCII v0.5 record (MLP_FAST + JSON or a bare word), else None."""
        match = _compiled(MLP_FAST).fullmatch(text)
        if match is None or not text.isascii():
            return None
        # "(file:line)": the greedy file group ends at the last colon, as the grammar
        # path's rpartition(":") does.
        benchmark, seconds, file, lineno, key, payload = match.groups()
        value: Any = None
        if payload is not None:
            # Only try JSON where JSON can start: a failed decode costs an exception,
            # and bare words ("adam") are common in v0.5 logs.
            value = _NOT_JSON
            if payload[0] in _JSON_START:
                try:  # noqa: SIM105 - contextlib.suppress costs more in this loop
                    value = self.loads(payload)
                except DecodeError:
                    pass
            if value is _NOT_JSON:
                if _compiled(_BARE_WORD).fullmatch(payload) is None:
                    return None  # Infinity, truncated JSON...: the grammar path explains
                value = payload.decode().rstrip()
        return _new(
            Record,
            (
                self.path,
                line_no,
                column,
                _MLP,
                benchmark.decode(),
                float(seconds) * 1000.0,
                None,
                key.decode(),
                value,
                {"file": file.decode(), "lineno": int(lineno)},
            ),
        )

    def _slow(self, line: bytes, raw: bytes, start: int, line_no: int, column: int) -> None:
        """Grammar path: exact reasons and columns for anything the fast path refused."""
        if len(self._problems) >= PROBLEM_LIMIT and self.full():
            self.result.omitted += 1  # one more line error, counted (PROBLEM_LIMIT)
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            text = raw.decode("latin-1")
            message = f"byte 0x{raw[err.start]:02x} is not UTF-8; the line is read as latin-1"
            self._problems.append(
                rules.BAD_ENCODING.problem(
                    self.path, message, line_no, column + err.start, text=shorten(text)
                )
            )
        offset = column - 1
        try:
            envelope = parse_envelope(text)
            record = build_record(envelope, self.path, line_no, column, offset, self._problems)
        except EnvelopeError as err:
            self._problems.append(
                rules.BAD_ENVELOPE.problem(
                    self.path, err.reason, line_no, column + err.offset, text=shorten(text)
                )
            )
            return
        except LineError as err:
            self._problems.append(line_problem(err, self.path, line_no, err.offset + 1, text))
            return
        self._records.append(record)

    def full(self) -> bool:
        """PROBLEM_LIMIT errors listed already (tallied as problems come)."""
        problems = self._problems
        if self._tallied > len(problems):  # trimmed (trim_problems) since the last tally
            self._tallied = len(problems)
        for problem in problems[self._tallied :]:
            self._errors += problem.severity is Severity.ERROR
        self._tallied = len(problems)
        return self._errors >= PROBLEM_LIMIT

    def trim_problems(self) -> None:
        """Keep the first PROBLEM_LIMIT problems; count the rest (line errors apart)."""
        problems = self._problems
        if len(problems) <= PROBLEM_LIMIT:
            return
        self.full()  # tally before trimming
        for problem in problems[PROBLEM_LIMIT:]:
            if problem.severity is Severity.ERROR and problem.line > 0:
                self.result.omitted += 1
            else:
                self.result.omitted_other += 1
        del problems[PROBLEM_LIMIT:]

    def long_line(self, line_no: int, size: int, marked: bool) -> None:
        """A line longer than MAX_LINE: a line error when it holds a marker."""
        if not marked:
            return
        self.result.marker_lines += 1
        message = f"line of {size:,} bytes, longer than {MAX_LINE:,}: not parsed"
        self._problems.append(rules.LINE_TOO_LONG.problem(self.path, message, line_no, 1))


def scan_chunks(chunks: Iterable[bytes], path: str, fast: bool = True) -> ParseResult:
    """Parse a stream given as byte chunks into one ParseResult holding every record.

    ``fast=False``: grammar path only (slow; for equivalence tests).
    """
    scanner = Scanner(path, fast)
    collecting = gc.isenabled()
    # A parse allocates a container per record and per payload object, none of them
    # cyclic: the cyclic collector would walk them again and again, finding nothing
    # (a fifth of the parse time, docs/parser.md). Paused for the parse, never left off.
    gc.disable()
    try:
        for _ in scan_blocks(scanner, chunks):
            pass
    finally:
        if collecting:
            gc.enable()
    return scanner.result


def stream_chunks(chunks: Iterable[bytes], scanner: Scanner) -> Iterator[Record]:
    """Records as each block of the stream is scanned, not kept: memory is bounded by
    the chunk and the longest line, whatever the input's size. Problems and counts
    are in ``scanner.result`` (with no records) once the iterator is exhausted."""
    records = scanner.result.records  # the scanner appends here; emptied per block
    for _ in scan_blocks(scanner, chunks):
        if records:
            batch = records[:]
            records.clear()
            yield from batch


def scan_blocks(scanner: Scanner, chunks: Iterable[bytes]) -> Iterator[None]:
    """Feed whole lines of the chunks to the scanner, one step per block of lines."""
    lines = Lines(scanner)
    for chunk in chunks:
        if lines.feed(chunk):
            yield
    lines.end()
    yield


class Lines:
    """Bytes in, whole lines to the scanner: a file's chunks (``scan_blocks``) or a
    growing log's appends (``follow/live.py``), under one bound: a line beyond MAX_LINE
    is read past, never kept (one line error MLS014 when it holds a marker), so
    ``check`` and ``check --follow`` give the same problems for it."""

    def __init__(self, scanner: Scanner) -> None:
        self.scanner = scanner
        self.line_no = 1  # number of the line that starts at the beginning of ``pending``
        self.pending: list[bytes] = []
        self.waiting = 0  # bytes in pending
        self.skipped: _LongLine | None = None  # a line beyond MAX_LINE, being read past
        self.total = 0

    def feed(self, chunk: bytes) -> bool:
        """Bytes that follow; True when whole lines were scanned."""
        if not chunk:
            return False
        scanner, result = self.scanner, self.scanner.result
        self.total += len(chunk)
        if self.skipped is not None:
            end = chunk.find(b"\n")
            self.skipped.feed(chunk if end == -1 else chunk[:end])
            if end == -1:
                return False
            scanner.long_line(self.line_no, self.skipped.size, self.skipped.marked)
            self.line_no, self.skipped, chunk = self.line_no + 1, None, chunk[end + 1 :]
            result.lines, result.bytes_read = self.line_no - 1, self.total
            if not chunk:
                return False
        cut = chunk.rfind(b"\n")
        if cut == -1:
            self.pending.append(chunk)  # a line longer than one chunk: keep collecting
            self.waiting += len(chunk)
            if self.waiting > MAX_LINE:  # bounded: read past the rest of the line
                self.skipped, self.pending, self.waiting = _LongLine(self.pending), [], 0
            return False
        if self.pending and self.waiting + chunk.find(b"\n") > MAX_LINE:  # ends here, too long
            end = chunk.find(b"\n")
            too_long = _LongLine([*self.pending, chunk[:end]])
            scanner.long_line(self.line_no, too_long.size, too_long.marked)
            self.line_no, self.pending, self.waiting = self.line_no + 1, [], 0
            chunk = chunk[end + 1 :]
            cut = chunk.rfind(b"\n")
            if cut == -1:
                self.pending, self.waiting = ([chunk], len(chunk)) if chunk else ([], 0)
                return False
        if self.pending:
            self.pending.append(chunk[: cut + 1])
            block = b"".join(self.pending)
        else:
            block = chunk[: cut + 1]
        self.pending = [chunk[cut + 1 :]] if cut + 1 < len(chunk) else []
        self.waiting = len(chunk) - cut - 1
        self.line_no = _scan_block(scanner, block, self.line_no)
        result.lines, result.bytes_read = self.line_no - 1, self.total
        scanner.trim_problems()
        return True

    def end(self) -> None:
        """The input ended: the last line, without a line feed, is read too."""
        scanner, result = self.scanner, self.scanner.result
        tail = b"".join(self.pending)
        lines = self.line_no - 1
        if self.skipped is not None:
            scanner.long_line(self.line_no, self.skipped.size, self.skipped.marked)
            lines += 1
        elif tail:
            _scan_block(scanner, tail, self.line_no)
            lines += 1
        self.pending, self.waiting, self.skipped = [], 0, None
        result.lines = lines
        result.bytes_read = self.total
        scanner.trim_problems()


class _LongLine:
    """A line read past without keeping it: its size and whether it holds a marker."""

    def __init__(self, parts: list[bytes]) -> None:
        self.size = 0
        self.marked = False
        self._tail = b""  # the last bytes seen: a marker may straddle two chunks
        for part in parts:
            self.feed(part)

    def feed(self, data: bytes) -> None:
        self.size += len(data)
        if not self.marked:
            self.marked = _CANDIDATE in self._tail + data[: len(_CANDIDATE)] or _CANDIDATE in data
        self._tail = data[-(len(_CANDIDATE) - 1) :] if data else self._tail


def _scan_block(scanner: Scanner, block: bytes, line_no: int) -> int:
    """Scan whole lines; returns the number of the line after the block.

    The common cases (a line holding one well-formed record of any generation after an
    ASCII prefix) are handled here without leaving the loop: this is where parsing
    time goes. Anything else takes Scanner.line (segments, grammar path).
    """
    if _CANDIDATE not in block:
        return line_no + block.count(b"\n")
    if not scanner.fast:
        return _scan_block_slow(scanner, block, line_no)
    loads = scanner.loads = loads_for(len(block))
    append = scanner._records.append
    path = scanner.path
    mllog = Generation.MLLOG
    new = _new
    pick = _PICK_FIELDS
    picking = True
    fast = 0
    lines = block.split(b"\n")
    if block.endswith(b"\n"):
        lines.pop()  # the empty string after the last LF is not a line
    # Only lines holding a candidate marker reach Python-level work: the mask is built
    # in C (map over a builtin method) once, for the block path and the loop alike.
    mask = list(map(bytes.__contains__, lines, repeat(_CANDIDATE)))
    cr = b"\r" in block
    if cr:
        # CRLF: drop the final CR (the empty segment after it is no marker line; the
        # mask stays right, CR is no part of a marker). Lines with other CRs (progress
        # bars redrawn) go to Scanner.line, which splits them.
        lines = [line[:-1] if line[-1:] == b"\r" else line for line in lines]
    if _bulk(scanner, lines, mask, line_no):
        return line_no + len(lines)
    for number, line in compress(enumerate(lines, line_no), mask):
        if cr and b"\r" in line:
            scanner.line(line, number)
            continue
        pos = line.rfind(_MLLOG_PREFIX)
        if pos == -1:
            if _MLLOG_MARKER not in line:
                record = _older_fast(scanner, line, number)
                if record is not None:
                    fast += 1
                    append(record)
                    continue
        elif pos == 0 or line[:pos].isascii():
            try:
                data = loads(line[pos + 9 :])
            except DecodeError:
                data = _NOT_JSON
            fields = None
            if picking and type(data) is dict:
                # One C call picks the six fields in Record order. A log that omits one
                # (Google's have no event_type) stops picking for the rest of the block,
                # rather than paying an exception per line.
                try:
                    fields = pick(data)
                except KeyError:
                    picking = False
            if (
                fields is not None
                and type(fields[3]) is str
                and (type(fields[1]) is int or type(fields[1]) is float)
                and type(fields[5]) is dict
            ):
                fast += 1
                append(new(Record, (path, number, pos + 1, mllog, *fields)))
                continue
            if type(data) is dict:
                get = data.get
                key = get("key")
                time_ms = get("time_ms")
                metadata = get("metadata")
                value = get("value", _NOT_JSON)
                if (
                    type(key) is str
                    and (type(time_ms) is int or type(time_ms) is float)
                    and type(metadata) is dict
                    and value is not _NOT_JSON
                ):
                    fast += 1
                    append(
                        new(
                            Record,
                            (
                                path,
                                number,
                                pos + 1,
                                mllog,
                                get("namespace"),
                                time_ms,
                                get("event_type"),
                                key,
                                value,
                                metadata,
                            ),
                        )
                    )
                    continue
            if data is not _NOT_JSON and line[pos + 9 : pos + 10] not in b" \t":
                scanner.mllog_checked(data, line, pos, number)
                fast += 1
                continue
        scanner.line(line, number)
    scanner.result.marker_lines += fast
    return line_no + len(lines)


def _older_fast(scanner: Scanner, line: bytes, number: int) -> Record | None:
    """v0.6/v0.5 lines (no :::MLLOG, no CR) after an ASCII prefix, without the detour
    through Scanner.line; the marker is found as last_marker() finds it."""
    pos = line.rfind(_MLL_MARKER)
    if pos != -1:
        if pos and not line[:pos].isascii():
            return None
        return scanner._fast_mll(line[pos:], number, pos + 1)
    pos = line.rfind(_MLP_MARKER)
    if pos == -1 or (pos and not line[:pos].isascii()):
        return None
    return scanner._fast_mlp(line[pos:], number, pos + 1)


def _bulk(scanner: Scanner, lines: list[bytes], mask: list[bool], line_no: int) -> bool:
    """A block whose marker lines all hold one generation's marker, once per line (no
    prefix but an ASCII one before :::MLLOG, no CR: as most real logs are), parsed
    without a Python loop per line where it can be. Returns False, having changed
    nothing, when the loop must do it.

    Equal to the loop by construction (the same decoder on the same payload bytes, the
    same regexes, the same field tests, the same fallbacks) and by test
    (tests/test_fastpath.py compares with the grammar path, tests/test_corpus_records.py
    with the official parser).
    """
    marked = list(compress(lines, mask))
    if not marked:
        return False
    joined = b"\n".join(marked)
    if joined.count(_CANDIDATE) != len(marked) or b"\r" in joined:
        return False  # a second marker on some line (the last-marker rule), or a CR
    first = marked[0]
    if _MLLOG_PREFIX in first:
        starts = list(map(bytes.rfind, marked, repeat(_MLLOG_PREFIX)))
        if -1 in starts:
            return False  # an older generation's line, or ":::MLLOG" without its space
        if (
            any(starts)
            and not b"".join(map(bytes.__getitem__, marked, map(slice, starts))).isascii()
        ):
            return False  # a non-ASCII prefix: the loop counts the column in characters
        return _bulk_mllog(scanner, marked, joined, mask, line_no, starts)
    if first.startswith(_MLP_MARKER):
        return _bulk_mlp(scanner, marked, joined, mask, line_no)
    if first.startswith(_MLL_MARKER):
        return _bulk_mll(scanner, marked, joined, mask, line_no)
    return False


def _bulk_mllog(
    scanner: Scanner,
    marked: list[bytes],
    joined: bytes,
    mask: list[bool],
    line_no: int,
    starts: list[int],
) -> bool:
    """:::MLLOG lines (``starts``: where each line's marker starts): payloads decoded by
    a C-level map (decoders.decode_each), fields checked and records built by C-level
    maps. A payload that is no well-formed record takes the loop's per-line tests on
    its decoded value (no second decode)."""
    if any(starts):
        ends = map(slice, map(_NINE.__add__, starts), repeat(None))
        payloads = list(map(bytes.__getitem__, marked, ends))
    else:
        payloads = [line[9:] for line in marked]
    data = decode_each(scanner.loads, payloads, joined)
    if data is None:
        return False  # a payload refused: the loop decodes each line alone
    numbers = compress(count(line_no), mask)
    if not (
        set(map(type, data)) <= _DICT  # a payload that is not an object
        and all(map(dict.__contains__, data, repeat("value")))
    ):
        _mllog_each(scanner, marked, list(numbers), data, starts)
        return True
    columns = [list(map(dict.get, data, repeat(name))) for name in _MLLOG_FIELDS]
    namespace, time_ms, event_type, key, value, metadata = columns
    if not (
        set(map(type, key)) <= _STR
        and set(map(type, time_ms)) <= _NUMBER_TYPES
        and set(map(type, metadata)) <= _DICT
    ):
        _mllog_each(scanner, marked, list(numbers), data, starts)
        return True
    n = len(data)
    columns_at = map(_ONE.__add__, starts)  # the marker's column (an ASCII prefix)
    rows = zip(
        repeat(scanner.path, n), numbers, columns_at,
        repeat(Generation.MLLOG, n), namespace, time_ms, event_type, key, value, metadata,
        strict=True,
    )  # fmt: skip
    scanner._records.extend(map(_new, repeat(Record, n), rows))
    scanner.result.marker_lines += n
    return True


def _mllog_each(
    scanner: Scanner, marked: list[bytes], numbers: list[int], data: list[Any], starts: list[int]
) -> None:
    """The loop's tests for :::MLLOG lines, one line at a time, on decoded values."""
    append = scanner._records.append
    path, mllog, fast = scanner.path, Generation.MLLOG, 0
    for number, line, value, pos in zip(numbers, marked, data, starts, strict=True):
        if type(value) is dict:
            get = value.get
            key = get("key")
            time_ms = get("time_ms")
            metadata = get("metadata")
            if (
                type(key) is str
                and (type(time_ms) is int or type(time_ms) is float)
                and type(metadata) is dict
                and "value" in value
            ):
                fast += 1
                fields = (get("namespace"), time_ms, get("event_type"), key, value["value"])
                append(_new(Record, (path, number, pos + 1, mllog, *fields, metadata)))
                continue
        if line[pos + 9 : pos + 10] not in b" \t":
            scanner.mllog_checked(value, line, pos, number)
            fast += 1
            continue
        scanner.line(line, number)
    scanner.result.marker_lines += fast


def _bulk_mlp(
    scanner: Scanner, marked: list[bytes], joined: bytes, mask: list[bool], line_no: int
) -> bool:
    """Bare ASCII v0.5 lines: MLP_FAST and the JSON decoder mapped over the lines, bare
    words checked by the same regex as the loop."""
    matches = _groups(MLP_FAST, marked)
    if matches is None or not joined.isascii():
        return False  # a line MLP_FAST refuses: the loop sends it to the grammar path
    payloads = [match[5] for match in matches]
    values: list[Any] = [None] * len(payloads)
    json_at = [i for i, payload in enumerate(payloads) if payload and payload[0] in _JSON_START]
    decoded = _decode_each(scanner, [payloads[i] for i in json_at])
    for i, value in zip(json_at, decoded, strict=True):
        values[i] = value
    bare = _compiled(_BARE_WORD).fullmatch
    for i, payload in enumerate(payloads):
        if payload and (payload[0] not in _JSON_START or values[i] is _NOT_JSON):
            if bare(payload) is None:
                return False  # Infinity, truncated JSON...: the grammar path explains
            values[i] = payload.decode().rstrip()
    # Columns by C-level maps, as the loop computes each field (float(seconds) * 1000.0,
    # the "(file:line)" metadata in that key order).
    n = len(matches)
    benchmark, seconds, file, lineno, key, _ = zip(*matches, strict=True)
    metadata = [{"file": f.decode(), "lineno": int(i)} for f, i in zip(file, lineno, strict=True)]
    rows = zip(
        repeat(scanner.path, n), compress(count(line_no), mask), repeat(1, n), repeat(_MLP, n),
        _decoded(benchmark), _milliseconds(seconds), repeat(None, n), _decoded(key), values,
        metadata, strict=True,
    )  # fmt: skip
    scanner._records.extend(map(_new, repeat(Record, n), rows))
    scanner.result.marker_lines += len(matches)
    return True


def _decode_each(scanner: Scanner, payloads: list[bytes]) -> list[Any]:
    """Each payload's JSON value, _NOT_JSON where the decoder refuses it."""
    values = decode_each(scanner.loads, payloads, b"\n".join(payloads))
    if values is not None:
        return values
    decoded = []
    for payload in payloads:
        try:
            decoded.append(scanner.loads(payload))
        except DecodeError:
            decoded.append(_NOT_JSON)
    return decoded


def _bulk_mll(
    scanner: Scanner, marked: list[bytes], joined: bytes, mask: list[bool], line_no: int
) -> bool:
    """Bare v0.6 lines: MLL_FAST and the JSON decoder mapped over the lines."""
    matches = _groups(MLL_FAST, marked)
    if matches is None:
        return False
    data = decode_each(scanner.loads, [match[2] for match in matches], joined)
    if (
        data is None
        or not set(map(type, data)) <= _DICT
        or not all(map(dict.__contains__, data, repeat("value")))
    ):
        return False
    n = len(matches)
    seconds, key, _ = zip(*matches, strict=True)
    rows = zip(
        repeat(scanner.path, n), compress(count(line_no), mask), repeat(1, n),
        repeat(Generation.MLL, n), repeat(None, n), _milliseconds(seconds), repeat(None, n),
        _decoded(key), map(dict.__getitem__, data, repeat("value")),
        map(_metadata, map(dict.get, data, repeat("metadata"))), strict=True,
    )  # fmt: skip
    scanner._records.extend(map(_new, repeat(Record, n), rows))
    scanner.result.marker_lines += len(matches)
    return True


def _metadata(metadata: Any) -> Metadata:
    return metadata if type(metadata) is dict else {}


def _groups(pattern: bytes, lines: list[bytes]) -> list[tuple[Any, ...]] | None:
    """Each line's groups of the pattern's fullmatch (C-level maps), None when a line
    does not match. (One findall over the block, anchored per line, is three times
    slower: the engine tries a match at every byte.)"""
    matches: list[Any] = list(map(_compiled(pattern).fullmatch, lines))
    if None in matches:
        return None
    return list(map(re.Match.groups, matches))


def _decoded(column: Iterable[bytes]) -> Iterator[str]:
    return map(bytes.decode, column)


def _milliseconds(seconds: Iterable[bytes]) -> Iterator[float]:
    """float(seconds) * 1000.0 of each, as the loop computes it."""
    return map(float.__mul__, map(float, seconds), repeat(1000.0))


_ONE, _NINE = 1, len(_MLLOG_PREFIX)
_MLLOG_FIELDS = ("namespace", "time_ms", "event_type", "key", "value", "metadata")
_STR, _DICT, _NUMBER_TYPES = frozenset({str}), frozenset({dict}), frozenset({int, float})


def _scan_block_slow(scanner: Scanner, block: bytes, line_no: int) -> int:
    lines = block.split(b"\n")
    if block.endswith(b"\n"):
        lines.pop()
    for number, line in enumerate(lines, line_no):
        if _CANDIDATE in line:
            scanner.line(line, number)
    return line_no + len(lines)
