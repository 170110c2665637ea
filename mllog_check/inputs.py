"""Inputs: files, directories (walked in sorted order), gzip, stdin; never a traceback.

A directory is a tree to check: links inside it are followed only while their
target stays inside the tree; a link leaving it is reported, never read. Every file
of a tree is opened here (``open_binary``, ``read_in_tree``): only regular files are
read (a FIFO would block, a device never ends), and never one outside the tree
(docs/security.md).
"""

from __future__ import annotations

import codecs
import itertools
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from .datafiles import NotRegular, open_regular_fd
from .errors import ReadError
from .problems import Problem, Severity
from .syntax_codes import INPUT_ERROR
from .values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import BinaryIO

CHUNK = 1 << 22  # 4 MiB: large enough to amortize per-chunk work, small enough to stay flat
STDIN = "-"
# A side file (scaling.json, a system description, a bypass note) is a few hundred
# bytes; a bigger one is refused rather than read whole (docs/security.md).
SIDE_FILE_LIMIT = 1 << 20
# gzip output beyond this many times the compressed bytes read so far, once past
# GZIP_RATIO_FLOOR bytes, is a decompression bomb: published logs compress 5-30 times
# (docs/security.md); zlib's own maximum is about 1,030.
GZIP_RATIO_LIMIT = 200
GZIP_RATIO_FLOOR = 16 << 20
# The inflater's first input after a gzip member's end (doubled up to CHUNK while the
# member goes on): what zlib copies per member stays near the member's size.
GZIP_WINDOW_MIN = 1 << 10


class InputError(ReadError):
    """An input that cannot be read; the message says why, for a person."""


class Source(Value):
    """One input to read: a file path or stdin, with the name to show."""

    __slots__ = ("display", "path", "root")

    def __init__(
        self,
        display: str,
        path: Path | None,  # None for stdin
        root: Path | None = None,  # the tree the file must stay inside (None: named alone)
    ) -> None:
        self.display = display
        self.path = path
        self.root = root


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

    def unreadable(err: OSError) -> None:  # a folder that cannot be listed is never skipped
        where = str(err.filename or root)
        why = f"folder cannot be read ({err.strerror or err}): nothing below it was checked"
        problems.append(_input_problem(where, why))

    for dirpath, dirnames, filenames in walk_tree(root, unreadable):
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
                sources.append(Source(str(file), file, root))
    # os.walk gives a folder's files before its subfolders; sort whole paths instead
    # (by components, so "a/z" comes before "a.txt/..." and "b").
    sources.sort(key=lambda s: s.path.parts if s.path else ())
    problems.sort(key=lambda p: Path(p.path).parts)
    return sources, problems


def walk_tree(
    root: Path, onerror: Callable[[OSError], None]
) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk without recursion (Python 3.11's recurses: a tree 1,100 folders deep
    raised RecursionError), top-down, not following links; the caller sorts."""
    pending = [str(root)]
    while pending:
        top = pending.pop()
        dirs: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()  # links to folders too, as os.walk lists them
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
        except OSError as err:
            onerror(err)
            continue
        yield top, dirs, files
        pending.extend(os.path.join(top, d) for d in reversed(dirs) if not _is_link(top, d))


def _is_link(top: str, name: str) -> bool:
    return os.path.islink(os.path.join(top, name))


def inside(path: Path, root: Path) -> bool:
    """``path``, links resolved, lies in ``root`` (resolved too)."""
    return _inside(path, root.resolve())


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
    if source.root is not None and not inside(source.path, source.root):
        raise InputError("leaves the checked tree (a link): not read")
    return open_regular(source.path)


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading bytes, else InputError: a FIFO, a device or a
    socket is never read (``datafiles.open_regular_fd``)."""
    try:
        fd = open_regular_fd(path)
    except FileNotFoundError:
        raise InputError("no such file (or a broken link)") from None
    except PermissionError:
        if path.is_dir():  # Windows refuses to open a folder
            raise InputError("is a directory, not a log file") from None
        raise InputError("permission denied") from None
    except NotRegular as err:
        if stat.S_ISDIR(err.mode):
            raise InputError("is a directory, not a log file") from None
        raise InputError(str(err)) from None
    except OSError as err:
        raise InputError(err.strerror or str(err)) from None
    return os.fdopen(fd, "rb")


def read_in_tree(path: Path, root: Path | None, limit: int = SIDE_FILE_LIMIT) -> bytes:
    """The bytes of a side file of a tree (scaling.json, a system description), or
    InputError: outside ``root`` (a link leaving it), not a regular file, or larger
    than ``limit`` bytes. The one way side files are read."""
    if root is not None and not inside(path, root):
        raise InputError("leaves the checked tree (a link): not read")
    with open_regular(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"larger than {limit:,} bytes: not read")
    return data


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
    before the break. The inflater is given a window of the chunk that starts small
    after each member and doubles while a member goes on: zlib copies the input after a
    member's end into ``unused_data``, so a 4 MiB chunk of 200,000 empty members handed
    whole took a copy of the chunk per member (quadratic: a minute; docs/security.md).
    """
    data, pos = head, 0  # the chunk read, and where the inflater's next input starts
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    read, written, window = len(head), 0, GZIP_WINDOW_MIN
    while True:
        piece = data[pos : pos + window]
        out = inflater.decompress(piece, CHUNK)  # bounded output: memory stays flat
        pos += len(piece) - len(inflater.unconsumed_tail) - len(inflater.unused_data)
        if out:
            written += len(out)
            if written > GZIP_RATIO_FLOOR and written > GZIP_RATIO_LIMIT * read:
                raise zlib.error(
                    f"decompresses more than {GZIP_RATIO_LIMIT} times its size: "
                    "refused as a decompression bomb"
                )
            yield out
        if inflater.eof:
            window = GZIP_WINDOW_MIN
            if data[pos : pos + 1] in (b"", b"\x00") and not data[pos:].strip(b"\x00"):
                # trailing zero padding (or nothing) after the last member
                data, pos = stream.read(CHUNK), 0
                read += len(data)
                if not data.strip(b"\x00"):
                    return
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            continue
        if inflater.unconsumed_tail:
            continue  # the output bound was reached: more output from the same input
        window = min(window * 2, CHUNK)
        if pos >= len(data):
            data, pos = stream.read(CHUNK), 0
            read += len(data)
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
