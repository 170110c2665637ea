"""Run fingerprints: the timed window and the evaluation curve of a run, and the runs
that share one with another run of the audited set (near-duplicates, MLA018-MLA020).

Two files of one run are rarely byte-identical when re-published: a system re-filed
under another name changes ``submission_platform``, a placeholder is edited, a ``seed``
line is appended. What such copies keep is what no second run reproduces: the
``run_start``/``run_stop`` times to the millisecond, and the sequence of evaluation
values with their epochs or sample counts (docs/audit.md, "Near-duplicate runs").
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ..records import Record

# An evaluation curve this short is shared by chance (one rounded value at epoch 1),
# and so is one of rounded values only (0.78 at epochs 1 and 2): a curve is a fingerprint
# when it has MIN_EVALS points and one value of MIN_DIGITS significant digits.
MIN_EVALS = 2
MIN_DIGITS = 5
# The position of an evaluation in the run (metadata key, by preference).
_AT_KEYS = ("epoch_num", "samples_count", "epoch_count", "train_samples", "step_num")
_KEY = re.compile(r'"key"\s*:\s*"([A-Za-z0-9_.:-]{1,80})"')
# A row of the audit's runs table (audit_rows.AuditRun), with what ``shared`` groups by.
Row = TypeVar("Row", bound=Mapping[str, Any])


def window(start_ms: Any, stop_ms: Any) -> str:
    """The timed window as a key ('' when not both timed, or either is 0)."""
    if not start_ms or not stop_ms:
        return ""
    return f"{start_ms!r}-{stop_ms!r}"


def curve_hash(records: Sequence[Record]) -> str:
    """sha1 of the (value, epoch or samples) pairs of eval_accuracy ('' under MIN_EVALS)."""
    points = []
    for r in records:
        if r.key != "eval_accuracy":
            continue
        meta = r.metadata if isinstance(r.metadata, dict) else {}
        at = next((meta[k] for k in _AT_KEYS if k in meta), None)
        points.append((r.value, at))
    if len(points) < MIN_EVALS or not any(_distinctive(value) for value, _ in points):
        return ""
    try:
        data = orjson.dumps(points, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # a value orjson cannot write: its repr
        data = repr(points).encode()
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def _distinctive(value: Any) -> bool:
    if not isinstance(value, float):
        return False
    digits = repr(abs(value)).split("e")[0].replace(".", "").lstrip("0")
    return len(digits) >= MIN_DIGITS


def shared(rows: Iterable[Row], column: str) -> list[list[Row]]:
    """Groups (two or more, each in path order) of rows with the same non-empty value."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        if row.get(column):
            groups.setdefault(row[column], []).append(row)
    return [sorted(g, key=lambda r: r["path"]) for _, g in sorted(groups.items()) if len(g) > 1]


def differing_lines(first: Path, second: Path, limit: int = 3) -> str:
    """The lines where two logs differ, for a message: ``line 12 (submission_platform)
    vs line 12``; '' when they cannot be read. At most ``limit`` hunks are named."""
    try:
        sizes = first.stat().st_size, second.stat().st_size
        if max(sizes) > MAX_DIFF_BYTES:  # the parser streams such a file; never read whole
            return f"not compared: over {MAX_DIFF_BYTES // 2**20} MiB"
        a, keys_a = _line_digests(first)
        b, keys_b = _line_digests(second)
    except OSError:
        return ""
    if a == b and keys_a == keys_b:
        return "the files are identical"
    hunks = _hunks(a, b)
    shown = [_hunk(op, keys_a, keys_b) for op in islice(hunks, limit)]
    more = f" and {len(hunks) - limit} more" if len(hunks) > limit else ""
    return "; ".join(shown) + more


# Logs larger than this are not read whole to name the lines that differ.
MAX_DIFF_BYTES = 64 * 2**20
# Lines between the common head and tail that difflib compares: beyond, one hunk (its
# matcher is quadratic in the worst case, and logs are hostile input).
MAX_DIFF_LINES = 2000


def _line_digests(path: Path) -> tuple[list[bytes], list[str | None]]:
    """Each line's hash and its record's key (``_KEY``), lines as ``str.splitlines`` cuts
    the UTF-8 text (errors replaced): what the diff compares and the message names,
    without holding the text (two 64 MiB logs held as lines took ~300 MB; docs/audit.md,
    "The whole record: speed and memory")."""
    hashes: list[bytes] = []
    keys: list[str | None] = []
    for line in read_lines(path):
        # a 128-bit digest, not hash(): lines are hostile and PYTHONHASHSEED may be set
        hashes.append(hashlib.blake2b(line.encode(), digest_size=16).digest())
        found = _KEY.search(line)
        keys.append(found.group(1) if found else None)
    return hashes, keys


def read_lines(path: Path, chunk: int = 1 << 20) -> Iterable[str]:
    """The lines of ``path``, as ``path.read_bytes().decode("utf-8", "replace")
    .splitlines()`` gives them, read ``chunk`` bytes at a time."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    rest = ""
    with path.open("rb") as handle:
        while data := handle.read(chunk):
            parts = (rest + decoder.decode(data)).splitlines(keepends=True)
            # The last piece may be cut (a line, a CR whose LF comes next): held back.
            rest = parts.pop() if parts else ""
            for part in parts:
                yield part.splitlines()[0]
    yield from (rest + decoder.decode(b"", final=True)).splitlines()


def _hunks(a: Sequence[object], b: Sequence[object]) -> list[tuple[str, int, int, int, int]]:
    """Differing (tag, a from, a to, b from, b to) ranges, after the common head and tail."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if max(len(mid_a), len(mid_b)) > MAX_DIFF_LINES:
        return [("replace", head, len(a) - tail, head, len(b) - tail)]
    matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    return [
        (tag, i1 + head, i2 + head, j1 + head, j2 + head)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _hunk(op: tuple[str, int, int, int, int], a: list[str | None], b: list[str | None]) -> str:
    _tag, i1, i2, j1, j2 = op
    left = _span(i1, i2, a) if i2 > i1 else f"nothing after line {i1}"
    right = _span(j1, j2, b) if j2 > j1 else f"nothing after line {j1}"
    return f"{left} vs {right}"


def _span(lo: int, hi: int, line_keys: list[str | None]) -> str:
    where = f"line {lo + 1}" if hi - lo == 1 else f"lines {lo + 1}-{hi}"
    keys = list(dict.fromkeys(k for k in line_keys[lo:hi] if k is not None))
    named = f" ({', '.join(keys[:3])}{', …' if len(keys) > 3 else ''})" if keys else ""
    return where + named
