"""Fuzzing real logs and result folders: mutations in, never an exception out.

Shared by tests/test_fuzz.py (a bounded, seeded number of inputs in CI) and
benchmarks/fuzz.py (the long mode). Every input is derived from ``Random(f"{seed}:{kind}:{i}")``
so a failure names the (seed, index) that replays it.

Logs (real corpus logs, mutated in memory) go through parse (the invariant
records + line errors == marker lines, and the streaming iterator's equal count), the
round's compliance check, round detection and the audit's anomaly detectors. Result
folders (a real result set copied with its system description, mutated on disk) go
through score, package and audit; a stage that reports it raised (MLP031) or an org the
audit could not check counts as an exception too.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import random
import re
import shutil
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROUNDS = (
    *("v0.5", "v0.6", "v0.7", "v1.0", "v1.1", "v2.0", "v2.1"),
    *("v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1"),
)


def ruleset_of(round_folder: str) -> str | None:
    """v1.0 -> 1.0.0; v0.5 has no compliance rules (parse checks only)."""
    if round_folder == "v0.5":
        return None
    return round_folder[1:] + ".0"


@dataclass
class Outcome:
    inputs: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, other: Outcome) -> None:
        self.inputs += other.inputs
        self.failures.extend(other.failures)


# ---------------------------------------------------------------- corpus samples


def corpus_logs(corpus: Path, max_bytes: int = 40_000) -> list[tuple[Path, str | None]]:
    """Small real result logs of every round, with the round's ruleset (sorted)."""
    found = []
    for round_folder in ROUNDS:
        base = corpus / round_folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            log = path.suffix in (".txt", ".log") and "result" in path.name
            if log and path.is_file() and path.stat().st_size <= max_bytes:
                found.append((path, ruleset_of(round_folder)))
    return found


@dataclass(frozen=True)
class SetSource:
    round_folder: str
    org: str
    system: str
    benchmark: str
    files: tuple[Path, ...]
    system_json: Path


def corpus_sets(corpus: Path, per_round: int = 3, max_bytes: int = 250_000) -> list[SetSource]:
    """A few small real result sets per round (v0.6 and later), with their descriptions."""
    sets = []
    for round_folder in ROUNDS[1:]:
        chosen = 0
        for bench in sorted((corpus / round_folder).glob("*/results/*/*")):
            org, system = bench.parts[-4], bench.parts[-2]
            files = tuple(sorted(bench.glob("result_*.txt")))
            desc = corpus / round_folder / org / "systems" / f"{system}.json"
            if not files or not desc.is_file():
                continue
            if sum(p.stat().st_size for p in files) > max_bytes:
                continue
            sets.append(SetSource(round_folder, org, system, bench.name, files, desc))
            chosen += 1
            if chosen == per_round:
                break
    return sets


# ---------------------------------------------------------------- log mutations

_WEIRD_VALUES = [
    b'"x"', b"null", b"[]", b"{}", b"[1, [2, {}]]", b"true", b"-1", b"0", b"1e308",
    b"-1e308", b"123456789012345678901234567890", b"0.0", b'""', b'"\\u0000"', b'"\\ud800"',
    b"NaN", b"Infinity", b'{"value": 1}', b"1.5", b'"1.0.0"',
]  # fmt: skip
_TIMES = [
    b"0", b"-1", b"1e308", b"-5e300", b'"1621000000000"', b"null", b"[]", b"1.5", b"{}",
    b"99999999999999999999999", b"NaN", b"true", b"",
]  # fmt: skip
_FIELD = re.compile(
    rb'"(namespace|time_ms|event_type|key|value|metadata|status|epoch_num|tensor|samples_count)": '
)
_SECONDS = re.compile(rb"(:::ML\S*\s+(?:\S+\s+)?)(\d+\.?\d*)")
_KEY_VALUE = re.compile(rb'"key": "([^"]*)"')
_TIME = re.compile(rb'"time_ms": ([^,}]*)')


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def bit_flips(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return b"\xff"
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(buf))
        buf[i] ^= 1 << rng.randrange(8)
    return bytes(buf)


def delete_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    for _ in range(rng.randint(1, max(1, len(lines) // 4))):
        if lines:
            del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def duplicate_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    for _ in range(rng.randint(1, 10)):
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return b"\n".join(lines)


def shuffle_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    if rng.random() < 0.3:
        rng.shuffle(lines)
    else:
        a = rng.randrange(len(lines))
        b = min(len(lines), a + rng.randint(2, 30))
        part = lines[a:b]
        rng.shuffle(part)
        lines[a:b] = part
    return b"\n".join(lines)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)] if data else data


def _edit_marker_line(
    data: bytes, rng: random.Random, edit: Callable[[bytes, random.Random], bytes]
) -> bytes:
    lines = _lines(data)
    marked = [i for i, line in enumerate(lines) if b":::ML" in line]
    if not marked:
        return data
    for _ in range(rng.randint(1, 5)):
        i = rng.choice(marked)
        lines[i] = edit(lines[i], rng)
    return b"\n".join(lines)


def _wrong_value(line: bytes, rng: random.Random) -> bytes:
    fields = list(_FIELD.finditer(line))
    if not fields:
        return line + b" " + rng.choice(_WEIRD_VALUES)
    match = rng.choice(fields)
    start = match.end()
    # replace the field's value up to the next comma or brace (rough, on purpose)
    end = start
    depth = 0
    while end < len(line):
        c = line[end : end + 1]
        if c in b"[{":
            depth += 1
        elif c in b"]}":
            if depth == 0:
                break
            depth -= 1
        elif c == b"," and depth == 0:
            break
        end += 1
    return line[:start] + rng.choice(_WEIRD_VALUES) + line[end:]


def wrong_types(data: bytes, rng: random.Random) -> bytes:
    return _edit_marker_line(data, rng, _wrong_value)


def _rename(line: bytes, rng: random.Random) -> bytes:
    choice = rng.random()
    if choice < 0.5:  # a key's name: misspelt, emptied, another key's
        names = [b"", b"run_stop", b"run_start", b"eval_accuracy", b"submission_benchmark"]
        names.append(b"x" * 300)
        match = _KEY_VALUE.search(line)
        if match is None:
            return line
        old = match.group(1)
        new = rng.choice(names) if rng.random() < 0.5 else old[::-1] or b"k"
        return line[: match.start(1)] + new + line[match.end(1) :]
    fields = list(_FIELD.finditer(line))  # a JSON field's name
    if not fields:
        return line
    match = rng.choice(fields)
    new = rng.choice([b"valu", b"kye", b"Time_ms", b"meta", b"", b"value"])
    return line[: match.start(1)] + new + line[match.end(1) :]


def rename_keys(data: bytes, rng: random.Random) -> bytes:
    return _edit_marker_line(data, rng, _rename)


def _bad_time(line: bytes, rng: random.Random) -> bytes:
    match = _TIME.search(line)
    if match is None:  # v0.5/v0.6: the seconds field after the marker
        return _SECONDS.sub(lambda m: m.group(1) + rng.choice(_TIMES), line, count=1)
    return line[: match.start(1)] + rng.choice(_TIMES) + line[match.end(1) :]


def bad_time_ms(data: bytes, rng: random.Random) -> bytes:
    return _edit_marker_line(data, rng, _bad_time)


def line_endings_and_prefixes(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    for _ in range(rng.randint(1, 10)):
        i = rng.randrange(len(lines))
        lines[i] = rng.choice([b"0: ", b"\r", b"\xe9\xff ", b"[1,0]<stdout>:", b"\t"]) + lines[i]
    joined = b"\n".join(lines)
    return joined.replace(b"\n", b"\r\n") if rng.random() < 0.2 else joined


# Hostile values (docs/security.md): beyond Python's int/str limit, beyond floats,
# non-finite, and text a terminal, CI log or spreadsheet would act on.
_HOSTILE_VALUES = [
    b"9" * 4301, b"-" + b"1" * 5000, b"1e400", b"-1e400", b"NaN", b"Infinity", b"-Infinity",
    b"1" + b"0" * 400, b"1e-400", b"4.9e-324",
    b'"\\u001b]8;;javascript:alert(1)\\u0007x\\u001b[2J"', b'"=HYPERLINK(\\"http://x\\")"',
    b'"\\n::error file=a.py::forged"', b'"\\r\\u202e@SUM(1)"', b'"+cmd|x"', b'"-2+3"',
]  # fmt: skip


def _hostile_value(line: bytes, rng: random.Random) -> bytes:
    fields = list(_FIELD.finditer(line))
    if not fields:
        return line
    match = rng.choice(fields)
    start = match.end()  # the value runs to the next comma or brace (rough, on purpose)
    end = start
    while end < len(line) and line[end : end + 1] not in b",}":
        end += 1
    return line[:start] + rng.choice(_HOSTILE_VALUES) + line[end:]


def hostile_values(data: bytes, rng: random.Random) -> bytes:
    return _edit_marker_line(data, rng, _hostile_value)


def cr_segments(data: bytes, rng: random.Random) -> bytes:
    """Marker lines joined by CR (a progress bar redrawn over records), a few or many."""
    lines = _lines(data)
    marked = [i for i, line in enumerate(lines) if b":::ML" in line]
    if len(marked) < 2:
        return data
    a = rng.randrange(len(marked) - 1)
    b = min(len(marked), a + rng.choice((2, 5, 50, 500)))
    chosen = marked[a:b]
    joined = b"\r".join(lines[i] for i in chosen)
    if rng.random() < 0.3:
        joined = "é ".encode() + joined
    for i in reversed(chosen[1:]):
        del lines[i]
    lines[chosen[0]] = joined
    return b"\n".join(lines)


def many_bad_lines(data: bytes, rng: random.Random) -> bytes:
    """More broken marker lines than a log lists problems for (scanner.PROBLEM_LIMIT)."""
    broken = rng.choice([b":::MLLOG {broken", b':::MLLOG {"key": 1', b":::MLL x", b":::MLLOG"])
    at = rng.randrange(len(data) + 1)
    at = data.rfind(b"\n", 0, at) + 1
    return data[:at] + (broken + b"\n") * rng.randint(1000, 1100) + data[at:]


def long_line(data: bytes, rng: random.Random) -> bytes:
    """A marker line longer than a read chunk (or than scanner.MAX_LINE, rarely)."""
    from mllog_check.parsing.scanner import MAX_LINE

    size = MAX_LINE + 1 if rng.random() < 0.02 else rng.choice((70_000, 300_000, 1_100_000))
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i] = lines[i] + b'"' + b"x" * size + b'"'
    return b"\n".join(lines)


def gzip_wrap(data: bytes, rng: random.Random) -> bytes:
    packed = gzip.compress(data, mtime=0)
    return packed[: rng.randrange(len(packed))] if rng.random() < 0.3 else packed


def gzip_members(data: bytes, rng: random.Random) -> bytes:
    """The log as many gzip members, empty ones between (a chunk of 200,000 empty
    members was quadratic), sometimes zero padding or a truncated last member."""
    cuts = sorted(rng.sample(range(len(data) + 1), min(len(data) + 1, rng.randrange(1, 40))))
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    empty = gzip.compress(b"", mtime=0)
    packed = b"".join(
        empty * rng.choice((0, 1, 50, 5000)) + gzip.compress(p, mtime=0, compresslevel=1)
        for p in pieces
    )
    ending = rng.random()
    if ending < 0.2:
        packed += b"\x00" * rng.randrange(1, 2000)
    elif ending < 0.3:
        packed = packed[: rng.randrange(len(packed))]
    return packed


def _nested(depth: int, rng: random.Random) -> bytes:
    """A JSON value ``depth`` levels deep: arrays, objects or both."""
    kind = rng.randrange(3)
    if kind == 0:
        return b"[" * depth + b"1" + b"]" * depth
    if kind == 1:
        return b'{"a": ' * depth + b"1" + b"}" * depth
    return b'[{"a": ' * (depth // 2) + b"[]" + b"}]" * (depth // 2)


def deep_values(data: bytes, rng: random.Random) -> bytes:
    """A value or a metadata field nested 50 to 3,000 deep (about 1,000 made later stages
    recurse; the parse bound is parsing.decoders.MAX_DEPTH)."""

    def edit(line: bytes, rng: random.Random) -> bytes:
        nested = _nested(rng.choice((50, 62, 63, 64, 65, 100, 990, 1024, 1025, 3000)), rng)
        if rng.random() < 0.5 and b'"metadata": {' in line:
            return line.replace(b'"metadata": {', b'"metadata": {"deep": ' + nested + b", ", 1)
        start = line.find(b'"value": ')
        if start < 0:
            return line + b" " + nested
        start += len(b'"value": ')
        end = line.find(b', "metadata"', start)
        return line[:start] + nested + (line[end:] if end >= 0 else b"}")

    return _edit_marker_line(data, rng, edit)


# Keys that rules relate to others (MLC051 quotes the value of the key at fault).
_RELATED = (
    b"global_batch_size", b"opt_base_learning_rate", b"opt_learning_rate_warmup_steps",
    b"opt_learning_rate_warmup_epochs", b"gradient_accumulation_steps", b"train_samples",
    b"eval_accuracy", b"max_sequence_length", b"opt_lamb_epsilon", b"seed",
)  # fmt: skip


def huge_relation_value(data: bytes, rng: random.Random) -> bytes:
    """A huge string or number as the value of a key that relations read, sometimes with
    the line relating to it repeated a thousand times (one 8 MB problem line, and 4.2 GB
    of memory for the repeats, before the message bounds)."""
    lines = _lines(data)
    marked = [i for i, line in enumerate(lines) if b":::ML" in line]
    if not marked:
        return data
    related = [i for i in marked if any(b'"key": "%s"' % k in lines[i] for k in _RELATED)]
    i = rng.choice(related or marked)
    size = 8_000_000 if rng.random() < 0.05 else rng.choice((5_000, 100_000, 1_000_000))
    huge = rng.choice((b'"' + b"A" * size + b'"', b"9" * min(size, 4_000), b'"\\n' * 1000 + b'"'))
    line = lines[i]
    start = line.find(b'"value": ')
    if start >= 0:
        start += len(b'"value": ')
        end = line.find(b', "metadata"', start)
        lines[i] = line[:start] + huge + (line[end:] if end >= 0 else b"}")
    else:
        lines[i] = line + b" " + huge
    if rng.random() < 0.3:
        j = rng.choice(marked)
        lines[j + 1 : j + 1] = [lines[j]] * 1_000
    return b"\n".join(lines)


LOG_MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "bit-flips": bit_flips,
    "delete-lines": delete_lines,
    "duplicate-lines": duplicate_lines,
    "shuffle-lines": shuffle_lines,
    "truncate": truncate,
    "wrong-types": wrong_types,
    "rename-keys": rename_keys,
    "bad-time-ms": bad_time_ms,
    "prefixes-crlf": line_endings_and_prefixes,
    "hostile-values": hostile_values,
    "cr-segments": cr_segments,
    "deep-values": deep_values,
}
# Costly mutations (a thousand grammar-explained errors, a megabyte line) come rarely,
# so a long run spends its time on many inputs rather than on a few slow ones.
RARE_LOG_MUTATIONS: dict[str, tuple[float, Callable[[bytes, random.Random], bytes]]] = {
    "many-bad-lines": (0.01, many_bad_lines),
    "long-line": (0.005, long_line),
    "gzip": (0.05, gzip_wrap),
    "gzip-members": (0.01, gzip_members),
    "huge-relation-value": (0.01, huge_relation_value),
}
# Follow stages of a mutated log (check --follow): fed in random pieces to LiveCheck, or
# read from a file that is rewritten, truncated or swapped while followed.
FOLLOW_CHANCE = 0.05
FOLLOW_FILE_CHANCE = 0.005


def mutate_log(data: bytes, rng: random.Random) -> tuple[list[str], bytes]:
    names = rng.sample(sorted(LOG_MUTATIONS), rng.choice((1, 1, 2, 3)))
    for name in names:
        data = LOG_MUTATIONS[name](data, rng)
    for name, (chance, mutation) in RARE_LOG_MUTATIONS.items():
        if rng.random() < chance:
            names.append(name)
            data = mutation(data, rng)
    return names, data


# ---------------------------------------------------------------- log pipeline


def check_log_input(data: bytes, ruleset: str | None) -> None:
    """Parse, stream, check, detect the round and look for anomalies: must not raise."""
    import io

    from mllog_check import parse_bytes
    from mllog_check.inputs import ReadState, read_chunks
    from mllog_check.parsing.scanner import Scanner, stream_chunks
    from mllog_check.rules import check_log, detect
    from mllog_check.submission import anomalies

    result = parse_bytes(data, "result_0.txt")
    assert len(result.records) + result.line_error_count == result.marker_lines, (
        f"{len(result.records)} records + {result.line_error_count} line errors "
        f"!= {result.marker_lines} marker lines"
    )
    assert result.marker_lines <= data.count(b":::ML") + gzip_marker_bound(data)
    scanner = Scanner("result_0.txt")
    streamed = sum(1 for _ in stream_chunks(read_chunks(io.BytesIO(data), ReadState()), scanner))
    assert streamed == len(result.records), (streamed, len(result.records))
    shown_safely(result.problems)
    if ruleset is not None:
        check_log(result, ruleset)
        shown_safely(check_log(result, ruleset, strict=True).problems)
    from mllog_check.rounds import RoundError

    with contextlib.suppress(RoundError):  # no round evidence: a usage error
        detect.check_chosen(result, "auto")
    anomalies.detect(result.records)
    anomalies.run_facts(result.records)


_UNSAFE = frozenset(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x2028, 0x2029])
_UNSAFE |= frozenset(chr(c) for c in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2069])


def shown_safely(problems: list[Any]) -> None:
    """Each problem's text form holds no control character but its own newline, and
    each of its CSV cells no formula (docs/security.md)."""
    from mllog_check.problems import format_problem
    from mllog_check.safety import csv_row

    for problem in problems[:50]:
        text = format_problem(problem)
        assert not (set(text) - {"\n"}) & _UNSAFE, repr(text)
        assert text.count("\n") <= 1, repr(text)
        for cell in csv_row(problem.row().values()):
            assert not (isinstance(cell, str) and cell[:1] in ("=", "+", "@", "\t", "\r")), cell


def follow_input(data: bytes, ruleset: str | None, rng: random.Random) -> None:
    """check --follow's live check and status line fed the log in random pieces: must not
    raise (an unknown round is the tool's own error); problems shown safely."""
    from mllog_check.errors import MllogCheckError
    from mllog_check.follow import LiveCheck
    from mllog_check.follow.progress import Progress

    try:
        live = LiveCheck("result_0.txt", ruleset or "auto")
        progress = Progress()

        def seen(rec: Any) -> None:
            if progress.round is None and live.choice is not None:
                progress.round = live.choice.round.version
            progress.feed(rec)

        live.on_record = seen
        position = 0
        while position < len(data):
            size = rng.choice((1, 7, 100, 4096, 1 << 16, 1 << 20))
            shown_safely(live.feed(data[position : position + size]))
            position += size
            if rng.random() < 0.05:
                progress.line()
        live.judge_end()
        progress.line()
        shown_safely(live.finish().problems)
    except MllogCheckError:
        pass


_FOLLOW_CHANGES = ("rewrite", "replace", "swap", "fifo", "link-out", "folder", "append")


def follow_file_input(data: bytes, rng: random.Random) -> None:
    """A log followed from a file (``FileTail``) while it is rewritten in place,
    truncated and written again, swapped for another file, a FIFO, a link leaving its
    folder or a folder, or appended to: no poll may raise or hang; a byte rewritten in
    what was read is seen (``rewritten``), an append is not."""
    import tempfile

    from mllog_check.errors import MllogCheckError
    from mllog_check.follow import LiveCheck
    from mllog_check.follow.tail import FileTail

    with tempfile.TemporaryDirectory(prefix="mllog-follow-") as work:
        folder = Path(work) / "logs"
        folder.mkdir()
        path = folder / "result_0.txt"
        half = rng.randrange(len(data) + 1)
        path.write_bytes(data[:half])
        tail = FileTail(str(path))
        live = LiveCheck(str(path), "auto")

        def drain(polls: int) -> None:
            nonlocal live
            for _ in range(polls):
                poll = tail.poll()
                if poll.restarted:
                    live = LiveCheck(str(path), "auto")
                if poll.data:
                    with contextlib.suppress(MllogCheckError):
                        live.feed(poll.data)

        try:
            drain(3)
            change = rng.choice(_FOLLOW_CHANGES)
            expect: bool | None = None
            if change == "rewrite" and half and tail.offset:
                spot = rng.randrange(tail.offset)
                with path.open("r+b") as log:
                    log.seek(spot)
                    log.write(bytes([data[spot] ^ 0x20]))
                expect = True
            elif change == "replace":
                path.write_bytes(bytes(reversed(data)))
            elif change == "swap":
                other = folder / "next.txt"
                other.write_bytes(data)
                os.replace(other, path)
            elif change == "fifo":
                path.unlink()
                os.mkfifo(path)
            elif change == "link-out":
                outside = Path(work) / "outside.txt"
                outside.write_bytes(data)
                path.unlink()
                path.symlink_to(outside)
            elif change == "folder":
                path.unlink()
                path.mkdir()
            elif change == "append":
                with path.open("ab") as log:
                    log.write(data[half:])
                expect = False
            drain(3)
            changed = tail.rewritten()
            assert expect is None or changed == expect, (change, changed)
            with contextlib.suppress(MllogCheckError):
                shown_safely(live.finish().problems)
        finally:
            tail.close()


# Names holding a line feed and a forged verdict line (docs/security.md, "Output is
# inert"): no human line of any command may start with the marker.
FORGED = "FORGED"
FORGING_ORG = f"Evil\n{FORGED} PASS AMD (5.0.0): 0 errors, 0 warnings\n{FORGED} verdict: PASS"
FORGING_LOG = f"result_0\n{FORGED} pass (closed bert, 5.0.0).txt"
VERDICT_NAME_CHANCE = 0.002


def cli_text(args: list[str]) -> tuple[int, str]:
    """One command in this process: (exit code, stdout and stderr); a traceback raises."""
    import io
    import sys

    from mllog_check.cli import main

    out, err, saved = io.StringIO(), io.StringIO(), sys.stderr
    code: Any = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(args)
    except SystemExit as done:
        code = done.code
    finally:
        sys.stderr = saved  # main wraps the stream it finds
    return int(code or 0), out.getvalue() + err.getvalue()


def no_forged_line(text: str) -> None:
    forged = [line for line in text.splitlines() if line.startswith(FORGED)]
    assert not forged, forged


def verdict_name_input(data: bytes, ruleset: str | None) -> None:
    """check of the log under a file name holding a forged verdict line: its per-file
    verdict keeps the name on one line."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mllog-names-") as work:
        path = Path(work) / FORGING_LOG
        path.write_bytes(data)
        args = ["check", *(["--ruleset", ruleset] if ruleset else []), str(path)]
        code, text = cli_text(args)
        assert code in (0, 1, 2), (code, text[-2000:])
        no_forged_line(text)


def gzip_marker_bound(data: bytes) -> int:
    """Markers inside compressed or UTF-16 data are not visible in the raw bytes."""
    return 10**9 if data[:2] in (b"\x1f\x8b", b"\xff\xfe", b"\xfe\xff") else 0


def fuzz_logs(
    logs: list[tuple[Path, str | None]], count: int, seed: int, start: int = 0
) -> Outcome:
    cache: dict[Path, bytes] = {}
    outcome = Outcome()
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:log:{i}")
        path, ruleset = logs[rng.randrange(len(logs))]
        if path not in cache:
            cache[path] = path.read_bytes()
        names, data = mutate_log(cache[path], rng)
        outcome.inputs += 1
        try:
            check_log_input(data, ruleset)
            if rng.random() < FOLLOW_CHANCE:
                names.append("follow")
                follow_input(data, ruleset, rng)
            if rng.random() < FOLLOW_FILE_CHANCE:
                names.append("follow-file")
                follow_file_input(data, rng)
            if rng.random() < VERDICT_NAME_CHANCE:
                names.append("verdict-name")
                verdict_name_input(data, ruleset)
        except Exception:
            outcome.failures.append(_failure(f"log {i} ({path}, {'+'.join(names)})", seed))
    return outcome


def _failure(what: str, seed: int) -> str:
    return f"seed {seed}, {what}:\n{traceback.format_exc(limit=-6)}"


# ---------------------------------------------------------------- result folders


def _copy_set(
    source: SetSource, into: Path, org_name: str | None = None
) -> tuple[Path, Path, Path]:
    """round/org/{systems,results/system/benchmark} under ``into``: (round, org, bench)."""
    round_dir = into / source.round_folder
    org = round_dir / (org_name or source.org)
    bench = org / "results" / source.system / source.benchmark
    bench.mkdir(parents=True)
    (org / "systems").mkdir()
    shutil.copyfile(source.system_json, org / "systems" / source.system_json.name)
    for path in source.files:
        shutil.copyfile(path, bench / path.name)
    return round_dir, org, bench


def _results(bench: Path) -> list[Path]:
    return sorted(bench.glob("result_*"))


def remove_runs(bench: Path, org: Path, rng: random.Random) -> None:
    files = _results(bench)
    for path in rng.sample(files, rng.randint(1, len(files))) if files else []:
        path.unlink()


def duplicate_run(bench: Path, org: Path, rng: random.Random) -> None:
    files = _results(bench)
    target = bench / f"result_{len(files) + rng.randint(0, 3)}.txt"
    source = rng.choice(files) if files else None
    if source is not None and source != target:
        shutil.copyfile(source, target)


def truncate_file(bench: Path, org: Path, rng: random.Random) -> None:
    files = _results(bench)
    if files:
        path = rng.choice(files)
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data) + 1)])


def _drop_key(key: bytes) -> Callable[[Path, Path, random.Random], None]:
    def drop(bench: Path, org: Path, rng: random.Random) -> None:
        for path in rng.sample(_results(bench), min(len(_results(bench)), rng.randint(1, 3))):
            kept = [line for line in path.read_bytes().split(b"\n") if key not in line]
            path.write_bytes(b"\n".join(kept))

    return drop


def abort_runs(bench: Path, org: Path, rng: random.Random) -> None:
    for path in rng.sample(_results(bench), min(len(_results(bench)), rng.randint(1, 3))):
        status = rng.choice([b"aborted", b"abort", b"", b"fail"])
        path.write_bytes(path.read_bytes().replace(b'"success"', b'"' + status + b'"'))


def mutate_one_log(bench: Path, org: Path, rng: random.Random) -> None:
    files = _results(bench)
    if files:
        path = rng.choice(files)
        path.write_bytes(mutate_log(path.read_bytes(), rng)[1])


def break_system_json(bench: Path, org: Path, rng: random.Random) -> None:
    (desc,) = (org / "systems").glob("*.json")
    choice = rng.random()
    if choice < 0.25:
        desc.unlink()
    elif choice < 0.5:
        data = desc.read_bytes()
        desc.write_bytes(data[: rng.randrange(len(data) + 1)])
    elif choice < 0.75:
        desc.write_bytes(
            rng.choice([b"[]", b"null", b'{"status": 5}', b'{"division": []}', b"\xff"])
        )
    else:
        desc.write_bytes(bit_flips(desc.read_bytes(), rng))


def rename_run(bench: Path, org: Path, rng: random.Random) -> None:
    files = _results(bench)
    if files:
        path = rng.choice(files)
        names = ["result_x.txt", "result_01.txt", "result_.txt", "run_0.txt", "result_7.txt.gz"]
        path.rename(bench / rng.choice(names))


def empty_run(bench: Path, org: Path, rng: random.Random) -> None:
    (bench / f"result_{rng.randint(0, 12)}.txt").write_bytes(rng.choice([b"", b"\x00" * 10, b"\n"]))


# What a file outside the tree says when it is read: it never may be (docs/security.md).
OUTSIDE_FACTOR = 0.00123
OUTSIDE_NAME = "READ-FROM-OUTSIDE"
_HOSTILE_NAMES = [
    "=HYPERLINK(\"http:x\")", "@SUM(1)", "+cmd", "-x", "javascript:alert(1)", "a\x1b[2Jb",
    "x\n::error file=a::y", "r\rtl\u202e", "%0A%25", "a,b:c", "é" * 100, "n" * 240,
    # Unicode look-alikes: zero-width, bidi isolates and overrides, Cyrillic and Greek
    # letters that look Latin, a fullwidth name, a combining mark.
    "A\u200bMD", "\u0410MD", "AM\u0044\u0301", "\u2066AMD\u2069", "\u202eDMA",
    "\uff21\uff2d\uff24", "\u0391\u039c\u0044", "G\ufeffoogle",
]  # fmt: skip


def hostile_names(bench: Path, org: Path, rng: random.Random) -> None:
    """The system folder, a result file or the benchmark folder renamed: legal names a
    terminal, CI log, spreadsheet or browser would act on, or long ones."""
    name = rng.choice(_HOSTILE_NAMES)
    choice = rng.random()
    files = _results(bench)
    if choice < 0.4 and files:
        rng.choice(files).rename(bench / f"result_{name}.txt")
    elif choice < 0.7:
        system = bench.parent
        system.rename(system.with_name(name))
        for old in (org / "systems").glob("*.json"):
            old.rename(old.with_name(f"{name}.json"))
    else:
        keys = ["system_name", "submitter", "division", "status"]
        _set_in_description(org, lambda: (rng.choice(keys), name))


def _set_in_description(org: Path, draw: Callable[[], tuple[str, Any]]) -> None:
    """One field of the org's first system description set, when it is a JSON object;
    ``draw`` gives (key, value) only then, so a seed replays the same inputs."""
    desc = next(iter((org / "systems").glob("*.json")), None)
    if desc is None or not desc.is_file():
        return
    try:
        data = json.loads(desc.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return
    if isinstance(data, dict):
        key, value = draw()
        data[key] = value
        desc.write_text(json.dumps(data), "utf-8")


def _outside(org: Path) -> Path:
    """A folder beside the round folder: outside every tree the pipeline is given."""
    outside = org.parent.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "scaling.json").write_text(json.dumps({"scaling_factor": OUTSIDE_FACTOR}))
    (outside / "system.json").write_text(json.dumps({"system_name": OUTSIDE_NAME}))
    return outside


def links(bench: Path, org: Path, rng: random.Random) -> None:
    """scaling.json, the system description, a result file or a folder made a link
    leaving the tree (or pointing at a device)."""
    outside = _outside(org)
    choice = rng.random()
    if choice < 0.3:
        target = bench / "scaling.json"
        target.unlink(missing_ok=True)
        target.symlink_to(outside / "scaling.json")
    elif choice < 0.55:
        for desc in (org / "systems").glob("*.json"):
            desc.unlink()
            desc.symlink_to(outside / "system.json")
    elif choice < 0.8:
        files = _results(bench)
        if files:
            path = rng.choice(files)
            shutil.copyfile(path, outside / path.name)
            path.unlink()
            path.symlink_to(rng.choice([outside / path.name, Path("/dev/zero")]))
    else:
        (bench.parent / "linked").symlink_to(outside, target_is_directory=True)


def special_files(bench: Path, org: Path, rng: random.Random) -> None:
    """A FIFO or a link to a character device where a result, scaling.json or a system
    description is expected: never read, never a hang."""
    choices = [*_results(bench), bench / "scaling.json", *(org / "systems").glob("*.json")]
    path = rng.choice(choices)
    if not path.parent.is_dir():  # an earlier mutation renamed or removed its folder
        return
    path.unlink(missing_ok=True)
    if rng.random() < 0.6 and hasattr(os, "mkfifo"):
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/null" if rng.random() < 0.5 else "/dev/zero")


def scaling_values(bench: Path, org: Path, rng: random.Random) -> None:
    factor = rng.choice(
        ["-1", "0", "NaN", "Infinity", "-Infinity", "1e400", "9" * 5000, '"2"', "[]", "1e-320"]
    )
    text = rng.choice([f'{{"scaling_factor": {factor}}}', factor, "[" * 5000])
    (bench / "scaling.json").write_text(text, "utf-8")


_HUGE_COUNTS: list[Any] = ["1e19", 1e308, 2**70, "9" * 400, -1, 0, "NaN", 1.5, "1e308"]


def system_numbers(bench: Path, org: Path, rng: random.Random) -> None:
    """A node or accelerator count in the system description beyond any system (1e308
    and "1e19" crashed every table writer)."""
    keys = ["number_of_nodes", "accelerators_per_node", "host_processors_per_node"]

    def huge() -> tuple[str, Any]:
        value = rng.choice(_HUGE_COUNTS)  # drawn before the key, as it always was
        return rng.choice(keys), value

    _set_in_description(org, huge)


def deep_folder(bench: Path, org: Path, rng: random.Random) -> None:
    """A result file far below the tree (a walk that recursed hit Python's limit)."""
    files = _results(bench)
    if not files:
        return
    here = org / "results"
    for _ in range(rng.choice((50, 1100))):
        here = here / "d"
        here.mkdir()
    shutil.copyfile(files[0], here / "result_0.txt")


_RUN_TIME = re.compile(rb'"time_ms": (\d+)[^\n]*"key": "(run_start|run_stop)"')
# Readings a mutated power log holds: 10^5 to 10^6 (about 1 KB of memory each, and
# 2,000,000 took over 300 s in score, before power logs were kept compact).
POWER_READINGS = (100_000, 100_000, 300_000, 1_000_000)


def power_log(bench: Path, org: Path, rng: random.Random) -> None:
    """A power folder for the result set: one node log per run, the first run's holding
    10^5 to 10^6 readings (some out of order, repeated, not numbers or beyond 1e9)."""
    files = _results(bench)
    if not files:
        return
    times = dict((k.decode(), int(t)) for t, k in _RUN_TIME.findall(files[0].read_bytes()))
    start = times.get("run_start", 1_700_000_000_000)
    stop = max(times.get("run_stop", start + 3_600_000), start + 1)
    count = rng.choice(POWER_READINGS)
    head = b':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "%s", "key": "%s", '
    tail = b'"metadata": {"file": "power.py", "lineno": 88}}\n'
    for n, path in enumerate(files):
        run = bench / "power" / path.name.split(".")[0]
        run.mkdir(parents=True, exist_ok=True)
        many = count if n == 0 else rng.choice((0, 60, 1_000))
        with (run / "node_0.txt").open("wb") as log:
            log.write(head % (start - 1, b"INTERVAL_START", b"power_measurement_start"))
            log.write(b'"value": null, ' + tail)
            log.write(head % (start - 1, b"POINT_IN_TIME", b"conversion_eff"))
            log.write(b'"value": 0.94, ' + tail)
            step = (stop - start) / max(many, 1)
            odd = rng.choice((0, 0.001, 0.1))  # share of hostile readings
            block = []
            for i in range(many):
                t, watts = start + i * step, b"%.1f" % (2800 + (i * 7919) % 6000)
                if odd and rng.random() < odd:
                    t = rng.choice((t - 10 * step, start - 5_000, t))
                    watts = rng.choice((b"-1", b"1e308", b"NaN", b'"x"', b"null", b"0"))
                block.append(head % (int(t), b"POINT_IN_TIME", b"power_reading"))
                block.append(b'"value": ' + watts + b", " + tail)
                if len(block) > 20_000:
                    log.write(b"".join(block))
                    block.clear()
            log.write(b"".join(block))
            log.write(head % (stop + 1, b"INTERVAL_END", b"power_measurement_stop"))
            log.write(b'"value": null, ' + tail)


def forging_names(bench: Path, org: Path, rng: random.Random) -> None:
    """A result log named with a line feed and a forged verdict line (the org folder
    gets such a name in fuzz_folders when this mutation is drawn)."""
    files = _results(bench)
    if files:
        rng.choice(files).rename(bench / FORGING_LOG)


_LAST = frozenset({"links", "special-files"})
FOLDER_MUTATIONS: dict[str, Callable[[Path, Path, random.Random], None]] = {
    "remove-runs": remove_runs,
    "duplicate-run": duplicate_run,
    "truncate-file": truncate_file,
    "no-run-start": _drop_key(b'"run_start"'),
    "no-run-stop": _drop_key(b'"run_stop"'),
    "status-aborted": abort_runs,
    "mutate-a-log": mutate_one_log,
    "system-json": break_system_json,
    "rename-run": rename_run,
    "empty-run": empty_run,
    "hostile-names": hostile_names,
    "links": links,
    "special-files": special_files,
    "scaling-values": scaling_values,
    "deep-folder": deep_folder,
    "system-numbers": system_numbers,
    "power-log": power_log,
    "forging-names": forging_names,
}


def check_folder_input(round_dir: Path, org: Path, ruleset: str, verdicts: bool = False) -> None:
    """Score, package and audit a folder: none may raise (usage errors aside). With
    ``verdicts``, check, package and audit print their text too, and no line of it may
    be one a name forged."""
    from mllog_check.results import compute_scores
    from mllog_check.submission.audit import NOTHING_AUDITED, run_audit
    from mllog_check.submission.package import check_package

    report: Any = compute_scores([str(org)], ruleset=ruleset)
    _score_tables(report)
    for row in report.scores:
        assert OUTSIDE_NAME not in str(row), row  # nothing outside the tree is read
        assert row.scaling_factor != OUTSIDE_FACTOR, row
        assert row.minutes is None or math.isfinite(row.minutes), row
    shown_safely(report.problems)
    for audit in (False, True):
        package = check_package(org, ruleset, audit=audit)
        crashed = [p.message for p in package.problems if p.rule == "MLP031"]
        assert not crashed, crashed
    result = run_audit(round_dir, ruleset, jobs=1)
    # an org whose runs were all removed is "nothing audited", its verdict (never a pass)
    failures = [o["failure"] for o in result.orgs if o["failure"] not in ("", NOTHING_AUDITED)]
    assert not failures, failures
    assert all(not o["passed"] for o in result.orgs if o["failure"] == NOTHING_AUDITED)
    crashed = [p.message for p in result.problems if p.rule == "MLP031"]
    assert not crashed, crashed
    if verdicts:
        _verdict_lines(round_dir, org, ruleset)


def _verdict_lines(round_dir: Path, org: Path, ruleset: str) -> None:
    """check, package and audit text of a tree whose names forge verdict lines."""
    audit_out = round_dir.parent / "audit-out"
    for args in (
        ["check", "--ruleset", ruleset, str(org / "results")],
        ["package", "--ruleset", ruleset, str(org)],
        ["audit", "-j1", "--ruleset", ruleset, "--out", str(audit_out), str(round_dir)],
    ):
        code, text = cli_text(args)
        assert code in (0, 1, 2), (args, code, text[-2000:])
        no_forged_line(text)


def _score_tables(report: Any) -> None:
    """score's tables written in every format (Parquet holds no integer beyond int64)."""
    import io

    from mllog_check.cli.score import _tables
    from mllog_check.reporters import tables

    for fmt in tables.offered("score"):
        binary = tables.FORMATS[fmt].binary
        for runs in (False, True):
            tables.write(fmt, _tables(report, fmt, runs), io.BytesIO() if binary else io.StringIO())


def fuzz_folders(
    sets: list[SetSource], count: int, seed: int, work: Path, start: int = 0
) -> Outcome:
    outcome = Outcome()
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:folder:{i}")
        source = sets[rng.randrange(len(sets))]
        here = work / f"input-{i}"
        names = rng.sample(sorted(FOLDER_MUTATIONS), rng.choice((1, 1, 2)))
        forging = "forging-names" in names
        round_dir, org, bench = _copy_set(source, here, FORGING_ORG if forging else None)
        names.sort(key=lambda n: n in _LAST)  # the others read files a FIFO would block
        for n, name in enumerate(names):
            try:
                FOLDER_MUTATIONS[name](bench, org, rng)
            except (FileNotFoundError, NotADirectoryError):  # an earlier one moved its place
                names[n] = f"{name}(not applicable)"
        outcome.inputs += 1
        ruleset = ruleset_of(source.round_folder)
        assert ruleset is not None
        try:
            check_folder_input(round_dir, org, ruleset, verdicts=forging)
        except Exception:
            where = f"{source.round_folder}/{source.org}/{source.system}/{source.benchmark}"
            outcome.failures.append(_failure(f"folder {i} ({where}, {'+'.join(names)})", seed))
        remove_tree(here)
    return outcome


def remove_tree(top: Path) -> None:
    """shutil.rmtree, after taking apart any folder chain too deep for its recursion."""
    for deep in sorted(top.glob("*/*/results/d"), reverse=True):
        levels = [deep]
        while (levels[-1] / "d").is_dir():
            levels.append(levels[-1] / "d")
        for level in reversed(levels):
            shutil.rmtree(level, ignore_errors=True)
    shutil.rmtree(top, ignore_errors=True)


# ---------------------------------------------------------------- user YAML

ROOT = Path(__file__).resolve().parent.parent
YAML_BASES = {
    "prices": ROOT / "fixtures/prices/sample.yaml",
    "ruleset": ROOT / "fixtures/check/rulesets/training-9.9.1.yaml",
}


def _anchors(rng: random.Random, levels: int) -> str:
    """Aliases nested ``levels`` deep, nine a level (or a self-reference)."""
    if rng.random() < 0.2:
        return "&self [1, *self]"
    inner = "&y0 [x, x, x, x, x, x, x, x, x]"
    for i in range(1, levels):
        inner = f"&y{i} [{inner}, " + ", ".join([f"*y{i - 1}"] * 8) + "]"
    return inner


def yaml_mutation(text: str, rng: random.Random) -> tuple[str, str]:
    """One hostile edit of a YAML document a user hands the tool."""
    choice = rng.randrange(6)
    lines = text.split("\n")
    if choice == 0:  # an alias bomb as the value of some key
        keyed = [i for i, line in enumerate(lines) if re.match(r"^\s*-?\s*\w+:\s*\S", line)]
        if keyed:
            i = rng.choice(keyed)
            head = lines[i].split(":", 1)[0]
            lines[i] = f"{head}: {_anchors(rng, rng.choice((3, 6, 9, 12)))}"
        return "aliases", "\n".join(lines)
    if choice == 1:  # prices that are numbers YAML reads but no amount
        value = rng.choice([".nan", ".inf", "-.inf", "1.0e-320", "1.0e+400", "0.0", "9" * 5000])
        return "price", re.sub(r"price: \S+", f"price: {value}", text, count=rng.randint(1, 3))
    if choice == 2:  # nesting deeper than any parser's recursion
        return "nesting", text + "\nextra: " + "[" * rng.choice((100, 2000, 20000)) + "\n"
    if choice == 3:
        return "truncate", text[: rng.randrange(len(text) + 1)]
    if choice == 4:
        return "bit-flips", bit_flips(text.encode(), rng).decode("utf-8", "replace")
    tag = rng.choice(["!!python/object/apply:os.system ['true']", "!!binary AAAA", "!!set {a}"])
    return "tags", text.replace(": ", f": {tag} #", 1)


def check_yaml_input(kind: str, text: str, work: Path) -> None:
    """Load the document as the tool does: a refusal of its own kind, never another
    exception (and never anything run: python tags are not constructed)."""
    from mllog_check.errors import MllogCheckError

    path = work / ("prices.yaml" if kind == "prices" else "training-9.9.9.yaml")
    path.write_text(text, "utf-8")
    if kind == "prices":
        from mllog_check.cost.prices import load_catalog

        with contextlib.suppress(MllogCheckError):
            load_catalog(path)
        return
    from mllog_check.rules import loader

    try:
        loader.load_ruleset(str(path))
    except MllogCheckError:
        pass
    finally:
        loader._load.cache_clear()  # a new file each input: do not keep them all


def fuzz_yaml(count: int, seed: int, work: Path, start: int = 0) -> Outcome:
    bases = {kind: path.read_text("utf-8") for kind, path in YAML_BASES.items()}
    outcome = Outcome()
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:yaml:{i}")
        kind = rng.choice(sorted(bases))
        name, text = yaml_mutation(bases[kind], rng)
        outcome.inputs += 1
        try:
            check_yaml_input(kind, text, work)
        except Exception:
            outcome.failures.append(_failure(f"yaml {i} ({kind}, {name})", seed))
    return outcome
