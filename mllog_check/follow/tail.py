"""Reading a log as it grows, as ``tail -F`` does: new bytes, truncation, rotation, pipes.

``FileTail.poll()`` returns what was appended since the last call (at most ``CHUNK``
bytes) and whether the file started over: truncated in place (``>`` again, logrotate's
copytruncate) or replaced by a new file at the path (rotation, a job's restart). A
replaced file's last bytes are read before the new one. A path that does not exist yet
is waited for. Every open goes through the regular-file guard of every read
(``inputs.open_binary``): a path that becomes a named pipe, a device or a link leaving
the log's folder is not read; ``refused`` says why until a regular file is back
(docs/security.md). ``PipeTail`` reads a pipe (``-``) without blocking longer than a poll.
Nothing here sleeps: the caller polls (``check --follow``: every ``POLL_SECONDS``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..inputs import CHUNK, InputError, Source, open_binary

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import BinaryIO

POLL_SECONDS = 0.1  # the latency budget is 1 s (docs/follow.md); polling costs ~nothing


class Poll:
    """One poll's outcome: the bytes read, the file started over, the input ended."""

    __slots__ = ("data", "restarted", "ended", "waiting", "refused")

    def __init__(
        self,
        data: bytes = b"",
        restarted: bool = False,
        ended: bool = False,
        waiting: bool = False,
        refused: str = "",
    ) -> None:
        self.data = data
        self.restarted = restarted  # what follows is a new log (truncated or replaced)
        self.ended = ended  # a pipe closed: no more input
        self.waiting = waiting  # the path does not exist (yet), or is refused
        self.refused = refused  # why the path is not read (a pipe, a device, a link out)


class FileTail:
    """A file path followed across truncation and replacement."""

    def __init__(self, path: str) -> None:
        self.path = path
        # The log's folder (a link named on the command line resolved): the tree a
        # replaced file must stay in, as a rotated log or a new run's does.
        self.source = Source(path, Path(path), Path(path).resolve().parent)
        self.refused = ""  # why the path is not read now; "" while it is
        self._file: BinaryIO | None = None
        self._identity: tuple[int, int] | None = None
        self.offset = 0
        # A digest of the bytes read since the file was (re)opened or started over: at
        # the end, the file's first ``offset`` bytes must still be these (``rewritten``).
        self._digest = hashlib.blake2b(digest_size=16)

    def poll(self) -> Poll:
        if self._file is None:
            if not self._open():
                return Poll(waiting=True, refused=self.refused)
            restarted = self._opened_before
            self._opened_before = True
            if restarted:
                return Poll(self._read(), restarted=True)
        data = self._read()
        if data:
            return Poll(data)
        return self._changed()

    _opened_before = False

    def _open(self) -> bool:
        try:
            file = open_binary(self.source)  # kept open across polls
        except InputError as err:
            missing = not os.path.lexists(self.path)
            self.refused = "" if missing else str(err)
            return False
        self.refused = ""
        info = os.fstat(file.fileno())
        self._file, self._identity, self.offset = file, (info.st_dev, info.st_ino), 0
        self._digest = hashlib.blake2b(digest_size=16)
        return True

    def _read(self) -> bytes:
        assert self._file is not None
        data = self._file.read(CHUNK)
        self.offset += len(data)
        self._digest.update(data)
        return data

    def _changed(self) -> Poll:
        """Nothing new at the end: the path may name another file, or this one shrank."""
        try:
            info = os.stat(self.path)
        except OSError:
            return Poll()  # moved away, the new one not there yet: keep the old one
        if (info.st_dev, info.st_ino) != self._identity:
            self.close()  # replaced: its last bytes were read before this poll
            if not self._open():
                return Poll(waiting=True, refused=self.refused)
            return Poll(self._read(), restarted=True)
        if info.st_size < self.offset:  # truncated in place
            assert self._file is not None
            self._file.seek(0)
            self.offset = 0
            self._digest = hashlib.blake2b(digest_size=16)
            return Poll(self._read(), restarted=True)
        return Poll()

    def rewritten(self) -> bool:
        """Whether the path no longer holds the bytes read from it: another file is there
        now, or the file's first ``offset`` bytes changed (rewritten in place after they
        were read, or truncated and written past the offset between two polls), which no
        poll can see. Reads the file again up to the offset (docs/follow.md)."""
        if self._file is None:
            return False
        try:
            info = os.stat(self.path)
        except OSError:
            return True
        if (info.st_dev, info.st_ino) != self._identity or info.st_size < self.offset:
            return True
        digest = hashlib.blake2b(digest_size=16)
        fd, position = self._file.fileno(), 0
        while position < self.offset:
            data = os.pread(fd, min(CHUNK, self.offset - position), position)
            if not data:
                return True
            digest.update(data)
            position += len(data)
        return digest.digest() != self._digest.digest()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class PipeTail:
    """A pipe or terminal (stdin): bytes as they come, the end when it closes."""

    refused = ""  # a pipe is read as it is

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.fd = stream.fileno()

    def poll(self, timeout: float = POLL_SECONDS) -> Poll:
        import select

        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return Poll()
        data = os.read(self.fd, CHUNK)
        return Poll(data) if data else Poll(ended=True)

    def rewritten(self) -> bool:
        return False  # a pipe's bytes are read once: nothing to compare them with

    def close(self) -> None:
        pass
