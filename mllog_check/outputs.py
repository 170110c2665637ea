"""Files the tool writes: never through a link, never into a special file.

A tree may ship ``report.html``, ``report_problems.txt``, ``mllog-audit/runs.csv`` or a
plots folder as a symbolic link to a file outside it (a shell start-up file): writing
the default name in the tree would overwrite that file with text taken from the tree
(docs/security.md). Every writer (the report, its side file and plots, the audit's
tables, ``-o``/``--output``, cost plots) opens its file with ``open_output`` and makes
its folder with ``output_folder``:

- the file is opened with ``O_NOFOLLOW``: a link in its place is refused, not followed;
- only a regular file with no other hard link is overwritten (a named pipe, a socket or
  a device in its place is refused; opened non-blocking so that a pipe cannot hang);
- a folder to write into that is a link is refused, as is one that is not a folder.

Paths under ``/dev/`` are the system's, not a tree's: ``-o /dev/stdout`` and
``-o /dev/null`` are written as named.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .datafiles import file_kind
from .errors import UsageError

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import IO, Any

_SYSTEM = "/dev/"


class OutputError(UsageError):
    """A file or folder the tool would write cannot be written safely; says why."""


def open_output(path: str | Path, binary: bool = False, newline: str | None = None) -> IO[Any]:
    """``path`` opened for writing (emptied), never through a link: binary, or UTF-8
    text with ``newline`` as ``open`` takes it. OutputError says why not."""
    name = os.fspath(path)
    fd = _system(name) if os.path.abspath(name).startswith(_SYSTEM) else _regular(name)
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", newline=newline)


def write_output(path: str | Path, text: str) -> Path:
    """``text`` as the whole of the file ``path`` (UTF-8, newlines as given)."""
    with open_output(path, newline="") as out:
        out.write(text)
    return Path(path)


def output_folder(path: str | Path) -> Path:
    """The folder ``path``, made with its parents when missing; OutputError when it
    is a link (its files would land wherever it points) or not a folder."""
    folder = Path(path)
    if folder.is_symlink():
        raise OutputError(f"{folder}: a symbolic link: refusing to write into it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{folder}: exists and is not a folder") from None
    except OSError as err:
        raise OutputError(f"{folder}: cannot make the folder ({err.strerror or err})") from None
    return folder


def _regular(name: str) -> int:
    flags = os.O_WRONLY | os.O_CREAT | _flag("O_NOFOLLOW") | _flag("O_NONBLOCK")
    flags |= _flag("O_NOCTTY") | _flag("O_CLOEXEC") | _flag("O_BINARY")
    if not _flag("O_NOFOLLOW") and os.path.islink(name):  # no O_NOFOLLOW (Windows)
        raise OutputError(_link(name))
    try:
        fd = os.open(name, flags, 0o666)
    except OSError as err:
        raise OutputError(_refusal(name, err)) from None
    try:
        _check_regular(name, fd)
        os.ftruncate(fd, 0)
        _blocking(fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _system(name: str) -> int:
    """A path under /dev/ (stdout, null) named on the command line: written as is."""
    flags = os.O_WRONLY | os.O_CREAT | _flag("O_TRUNC") | _flag("O_NOCTTY") | _flag("O_BINARY")
    try:
        return os.open(name, flags, 0o666)
    except OSError as err:
        raise OutputError(_refusal(name, err)) from None


def _check_regular(name: str, fd: int) -> None:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(f"{name}: is a folder: not written")
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{name}: not a regular file ({file_kind(info.st_mode)}): not written")
    if info.st_nlink > 1:  # another name shares the file: it would change too
        raise OutputError(f"{name}: has {info.st_nlink - 1} other hard link(s): not written")


def _refusal(name: str, err: OSError) -> str:
    if err.errno == errno.ELOOP or os.path.islink(name):
        return _link(name)
    if err.errno == errno.ENXIO:  # O_NONBLOCK on a named pipe without a reader
        return f"{name}: not a regular file (a named pipe): not written"
    if err.errno == errno.EISDIR:
        return f"{name}: is a folder: not written"
    return f"{name}: cannot be written ({err.strerror or err})"


def _link(name: str) -> str:
    return f"{name}: a symbolic link: not written through it (remove it, or name its target)"


def _blocking(fd: int) -> None:
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)


def _flag(name: str) -> int:
    return int(getattr(os, name, 0))


def check_writable(path: str | Path) -> None:
    """Before a run, OutputError when the file ``path`` could not be written at its end
    (a missing folder, a read-only one, a link, a folder or a special file in its place):
    a long run never ends in a refusal (docs/security.md). An existing file is opened
    for writing without being emptied; a missing one is created and removed again."""
    name = os.fspath(path)
    if os.path.abspath(name).startswith(_SYSTEM):
        return
    existed = os.path.lexists(name)
    flags = os.O_WRONLY | _flag("O_NOFOLLOW") | _flag("O_NONBLOCK") | _flag("O_NOCTTY")
    flags |= 0 if existed else os.O_CREAT | os.O_EXCL
    if not _flag("O_NOFOLLOW") and os.path.islink(name):
        raise OutputError(_link(name))
    try:
        fd = os.open(name, flags | _flag("O_BINARY"), 0o666)
    except OSError as err:
        raise OutputError(_refusal(name, err)) from None
    try:
        _check_regular(name, fd)
    finally:
        os.close(fd)
        if not existed:
            os.unlink(name)
