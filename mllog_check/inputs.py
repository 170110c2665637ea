"""Inputs: files, directories (walked in sorted order), gzip, stdin; never a traceback.

A directory is a tree to check: links inside it are followed only while their
target stays inside the tree; a link leaving it is reported, never read.
"""

from __future__ import annotations

import codecs
import itertools
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import MllogCheckError
from .problems import Problem, Severity
from .syntax_codes import INPUT_ERROR
from .values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import BinaryIO

CHUNK = 1 << 22  # 4 MiB: large enough to amortize per-chunk work, small enough to stay flat
STDIN = "-"


class InputError(MllogCheckError):
    """An input that cannot be read; the message says why, for a person."""


class Source(Value):
    """One input to read: a file path or stdin, with the name to show."""

    __slots__ = ("display", "path")

    def __init__(
        self,
        display: str,
        path: Path | None,  # None for stdin
    ) -> None:
        self.display = display
        self.path = path


def _input_problem(
    display: str, message: str, line: int = 0, severity: Severity | None = None
) -> Problem:
    return INPUT_ERROR.problem(display, message, line, severity=severity)


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
                message = "symbolic link to a directory: not followed"
                problems.append(_input_problem(str(sub), message, severity=Severity.WARNING))
        for name in sorted(filenames):
            file = here / name
            if file.is_symlink() and not _inside(file, real_root):
                problems.append(
                    _input_problem(str(file), "symbolic link leaves the checked tree: not followed")
                )
                continue
            if accept is None or accept(file):
                sources.append(Source(str(file), file))
    # os.walk gives a folder's files before its subfolders; sort whole paths instead
    # (by components, so "a/z" comes before "a.txt/..." and "b").
    sources.sort(key=lambda s: s.path.parts if s.path else ())
    problems.sort(key=lambda p: Path(p.path).parts)
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


class ReadState(Value):
    """What the reader learnt about the bytes: compression, encoding, late failures."""

    __slots__ = ("gzip", "utf16", "error", "nul_bytes")
    __hash__ = None  # type: ignore[assignment]  # mutable

    def __init__(self) -> None:
        self.gzip = False
        self.utf16 = ""
        self.error = ""
        self.nul_bytes = False


def read_chunks(stream: BinaryIO, state: ReadState) -> Iterator[bytes]:
    """Yield the decoded, decompressed byte content of a stream in chunks.

    gzip is recognised by its magic number, UTF-16 and UTF-8 by their byte-order
    marks. A failure midway (truncated gzip, I/O error) ends the stream and is
    recorded in ``state.error``; everything decoded before it is yielded first.
    """
    try:
        head = stream.read(CHUNK)
        raw: Iterator[bytes]
        if head[:2] == b"\x1f\x8b":
            state.gzip = True
            raw = _gunzip(head, stream)
        else:
            raw = _plain(head, stream)
        first = b""
        for chunk in raw:  # at least 3 bytes to see a byte-order mark
            first += chunk
            if len(first) >= 3:
                break
        if first[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            yield from _utf16(first, raw, state)
            return
        if first[:3] == codecs.BOM_UTF8:
            first = first[3:]
        for chunk in itertools.chain((first,), raw):
            if b"\x00" in chunk:
                state.nul_bytes = True
            if chunk:
                yield chunk
    except (OSError, EOFError, zlib.error) as err:
        state.error = _describe(err, state)
    finally:
        stream.close() if stream is not sys.stdin.buffer else None


def _plain(head: bytes, stream: BinaryIO) -> Iterator[bytes]:
    while head:
        yield head
        head = stream.read(CHUNK)


def _gunzip(head: bytes, stream: BinaryIO) -> Iterator[bytes]:
    """Decompress gzip (members may be concatenated), yielding output as it comes.

    zlib's decompressobj rather than GzipFile: GzipFile.read() drops what it had
    decompressed when the stream turns out truncated, and we keep every record
    before the break.
    """
    data = head
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    while True:
        out = inflater.decompress(data, CHUNK)  # bounded output: memory stays flat
        if out:
            yield out
        data = inflater.unconsumed_tail
        if inflater.eof:
            rest = inflater.unused_data + data
            if not rest.strip(b"\x00"):  # trailing zero padding after the last member
                rest = stream.read(CHUNK)
                if not rest.strip(b"\x00"):
                    return
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            data = rest
            continue
        if not data:
            data = stream.read(CHUNK)
            if not data:
                raise EOFError("compressed file ended before the end-of-stream marker")


def _utf16(first: bytes, raw: Iterator[bytes], state: ReadState) -> Iterator[bytes]:
    state.utf16 = "UTF-16-LE" if first[:2] == codecs.BOM_UTF16_LE else "UTF-16-BE"
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    for data in itertools.chain((first,), raw):
        yield decoder.decode(data).encode("utf-8")
    yield decoder.decode(b"", final=True).encode("utf-8")


def _describe(err: BaseException, state: ReadState) -> str:
    if state.gzip or isinstance(err, EOFError | zlib.error):
        detail = str(err) or type(err).__name__
        return f"broken gzip stream ({detail}); records before the break are kept"
    if isinstance(err, OSError):
        return f"read error: {err.strerror or err}"
    return str(err)
