"""The evaluation curves an audit keeps for its record, in an unnamed temporary file.

A worker packs each org's curves as the record writes them, JSON text (``pack``); the
audit appends each org's pack to one temporary file as it arrives and keeps an index
only: path -> (offset, length, benchmark). The record's writer reads them back one at a
time (html_report/record.py). So neither the audit nor its record writer holds every
run's curve: on a record-sized tree they were the larger part of what the audit held
(docs/audit.md, "Cold, cached, memory").

The file is ``tempfile.TemporaryFile``'s: unlinked as it is made (O_TMPFILE where the
system has it), so no other process can name it, and what goes through it is JSON, never
pickle (docs/security.md).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from ..outputs import OutputError
from ..results.curves import RunCurve, from_fields_json


class SpillError(OutputError):
    """The temporary file could not be written (a full disk): no record, no verdict."""


@dataclass(frozen=True)
class PackedCurves:
    """One org's curves as a worker sends them: their JSON texts end to end, and for
    each (path, benchmark, length in bytes) in that order."""

    blob: bytes = b""
    entries: tuple[tuple[str, str, int], ...] = ()


def pack(curves: dict[str, tuple[str, str]]) -> PackedCurves:
    """``path -> (benchmark, the curve's JSON)`` as a worker has them
    (``PackageReport.curves``), packed."""
    texts = [(path, bench, text.encode()) for path, (bench, text) in curves.items()]
    entries = tuple((path, bench, len(text)) for path, bench, text in texts)
    return PackedCurves(b"".join(text for _, _, text in texts), entries)


def unpack(packed: PackedCurves) -> Iterator[tuple[str, str, str]]:
    """(path, benchmark, the curve's JSON) of each curve packed, in order."""
    offset = 0
    for path, bench, length in packed.entries:
        yield path, bench, packed.blob[offset : offset + length].decode()
        offset += length


@dataclass(eq=False)
class CurveSpill:
    """Curves by path, on disk; iterating gives the paths."""

    _file: IO[bytes] | None = field(default=None, repr=False)
    _end: int = 0
    _index: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    def add(self, packed: PackedCurves) -> None:
        """Append one org's curves; a path given again is the later one's."""
        if not packed.entries:
            return
        try:
            if self._file is None:
                # Open for the audit's life: closed with the object.
                self._file = tempfile.TemporaryFile(prefix="mllog-check-curves-")  # noqa: SIM115
            self._file.write(packed.blob)
            self._file.flush()  # read back by pread, below the buffer
        except OSError as err:
            raise SpillError(f"the evaluation curves' temporary file: {err}") from None
        offset = self._end
        for path, bench, length in packed.entries:
            self._index[path] = (offset, length, bench)
            offset += length
        self._end += len(packed.blob)

    def __contains__(self, path: object) -> bool:
        return path in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def benchmark(self, path: str) -> str:
        return self._index[path][2]

    def text(self, path: str) -> str:
        """The curve's JSON as ``results.curves.fields_json`` wrote it."""
        offset, length, _ = self._index[path]
        assert self._file is not None  # an indexed path was written
        chunks, done = [], 0
        while done < length:  # pread may return less than asked
            chunk = os.pread(self._file.fileno(), length - done, offset + done)
            if not chunk:
                raise SpillError(f"the evaluation curves' temporary file ends at {offset + done}")
            chunks.append(chunk)
            done += len(chunk)
        return b"".join(chunks).decode()

    def curve(self, path: str, shown: str) -> RunCurve:
        """The curve of ``path``, as a RunCurve whose path is ``shown``."""
        return from_fields_json(shown, self.text(path))
