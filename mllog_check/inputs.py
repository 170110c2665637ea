"""Inputs: files, directories (walked in sorted order), gzip, stdin; never a traceback.

A directory is a tree to check: links inside it are followed only while their
target stays inside the tree; a link leaving it is reported, never read.
"""

from __future__ import annotations

import codecs
import gzip
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .problems import Problem, Severity

CHUNK = 1 << 22  # 4 MiB: large enough to amortize per-chunk work, small enough to stay flat
STDIN = "-"


class InputError(Exception):
    """An input that cannot be read; the message says why, for a person."""


@dataclass(frozen=True, slots=True)
class Source:
    """One input to read: a file path or stdin, with the name to show."""

    display: str
    path: Path | None  # None for stdin


def _input_problem(display: str, message: str, line: int = 0) -> Problem:
    return Problem(display, line, 0, "MLS010", Severity.ERROR, message, "input-error")


def expand(
    paths: list[str], accept: Callable[[Path], bool] | None = None
) -> tuple[list[Source], list[Problem]]:
    """Turn command-line paths into sources; directories are walked in sorted order.

    ``accept`` filters files found inside directories (files named explicitly are
    always taken). Problems are returned for paths that do not exist or links that
    leave a walked tree.
    """
    sources: list[Source] = []
    problems: list[Problem] = []
    for raw in paths:
        if raw == STDIN:
            sources.append(Source("<stdin>", None))
            continue
        path = Path(raw)
        if path.is_dir():
            found, issues = walk(path, accept)
            sources.extend(found)
            problems.extend(issues)
        elif path.exists() or path.is_symlink():
            sources.append(Source(raw, path))
        else:
            problems.append(_input_problem(raw, "no such file or directory"))
    return sources, problems


def walk(
    root: Path, accept: Callable[[Path], bool] | None = None
) -> tuple[list[Source], list[Problem]]:
    """Files below root, sorted, without following links that leave it."""
    sources: list[Source] = []
    problems: list[Problem] = []
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=None):
        dirnames.sort()
        here = Path(dirpath)
        for name in list(dirnames):
            sub = here / name
            if sub.is_symlink():
                dirnames.remove(name)
                problems.append(
                    Problem(
                        str(sub),
                        0,
                        0,
                        "MLS010",
                        Severity.WARNING,
                        "symbolic link to a directory: not followed",
                        "input-error",
                    )
                )
        for name in sorted(filenames):
            file = here / name
            if file.is_symlink() and not _inside(file, real_root):
                problems.append(
                    _input_problem(str(file), "symbolic link leaves the checked tree: not followed")
                )
                continue
            if accept is None or accept(file):
                sources.append(Source(str(file), file))
    return sources, problems


def _inside(link: Path, real_root: Path) -> bool:
    try:
        target = link.resolve(strict=False)
    except (OSError, RuntimeError):
        return False
    return target == real_root or real_root in target.parents


def open_binary(source: Source) -> BinaryIO:
    """Open a source for reading bytes or raise InputError with a clear reason."""
    if source.path is None:
        return sys.stdin.buffer
    try:
        if source.path.is_dir():
            raise InputError("is a directory, not a log file")
        return open(source.path, "rb")
    except FileNotFoundError:
        raise InputError("no such file (or a broken link)") from None
    except PermissionError:
        raise InputError("permission denied") from None
    except OSError as err:
        raise InputError(err.strerror or str(err)) from None


@dataclass
class ReadState:
    """What the reader learnt about the bytes: compression, encoding, late failures."""

    gzip: bool = False
    utf16: str = ""
    error: str = ""
    nul_bytes: bool = False


def read_chunks(stream: BinaryIO, state: ReadState) -> Iterator[bytes]:
    """Yield the decoded, decompressed byte content of a stream in chunks.

    gzip is recognised by its magic number, UTF-16 and UTF-8 by their byte-order
    marks. A failure midway (truncated gzip, I/O error) ends the stream and is
    recorded in ``state.error``; what was read before it is kept.
    """
    try:
        head = stream.read(CHUNK)
        if head[:2] == b"\x1f\x8b":
            state.gzip = True
            inner: BinaryIO = gzip.GzipFile(fileobj=_Prepend(head, stream))  # type: ignore[call-overload]
            head = inner.read(CHUNK)
            stream = inner
        if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            yield from _utf16(head, stream, state)
            return
        if head[:3] == codecs.BOM_UTF8:
            head = head[3:]
        while head:
            if b"\x00" in head:
                state.nul_bytes = True
            yield head
            head = stream.read(CHUNK)
    except (OSError, EOFError, zlib.error) as err:
        state.error = _describe(err, state)
    finally:
        stream.close() if stream is not sys.stdin.buffer else None


def _utf16(head: bytes, stream: BinaryIO, state: ReadState) -> Iterator[bytes]:
    state.utf16 = "UTF-16-LE" if head[:2] == codecs.BOM_UTF16_LE else "UTF-16-BE"
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    data = head
    while data:
        yield decoder.decode(data).encode("utf-8")
        data = stream.read(CHUNK)
    yield decoder.decode(b"", final=True).encode("utf-8")


def _describe(err: BaseException, state: ReadState) -> str:
    if state.gzip or isinstance(err, EOFError | zlib.error | gzip.BadGzipFile):
        detail = str(err) or type(err).__name__
        return f"broken gzip stream ({detail}); records before the break are kept"
    if isinstance(err, OSError):
        return f"read error: {err.strerror or err}"
    return str(err)


class _Prepend:
    """A file object that replays bytes already read before the rest of a stream."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head = head
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size < 0:
                data, self._head = self._head + self._stream.read(), b""
                return data
            data, self._head = self._head[:size], self._head[size:]
            return data
        return self._stream.read(size)

    def close(self) -> None:
        self._stream.close()
