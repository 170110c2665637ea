"""``check --follow`` when the followed path is swapped for something it must not read
(docs/security.md, docs/follow.md): a link leaving the log's folder, a named pipe, a
device. Each reopen goes through the regular-file guard of every read; the follower
says so and waits, and a follow that ends there is not a pass.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_follow import Follow, _growing, _index, _lines, _write

pytestmark = pytest.mark.corpus

SECRET = b"SECRET-OUTSIDE"


@pytest.fixture
def follows() -> Iterator[list[Follow]]:
    """The followers a test starts; killed at its end when still running (a failure
    on a build that hangs must not leave one behind)."""
    started: list[Follow] = []
    yield started
    for follow in started:
        if follow.proc.poll() is None:
            follow.proc.kill()
            follow.proc.wait()


def _swap(path: Path, make: object) -> None:
    path.unlink()
    make()  # type: ignore[operator]


def test_a_followed_path_swapped_for_a_link_pipe_or_device_is_not_read(
    corpus: Path, tmp_path: Path, follows: list[Follow]
) -> None:
    lines = _lines(corpus)
    outside = tmp_path / "outside.txt"  # a log beside the round folder: outside its tree
    outside.write_bytes(b"".join(lines).replace(b"GigaComputing", SECRET))
    path = _growing(tmp_path)
    _write(path, lines[: _index(lines, "run_start")])
    follow = Follow([str(path)])
    follows.append(follow)
    follow.wait_for("status:")
    _swap(path, lambda: path.symlink_to(outside))
    follow.wait_for(r"leaves the checked tree \(a link\): not read; waiting for a regular file")
    _swap(path, lambda: os.mkfifo(path))  # before: the follower hung on it
    follow.wait_for(r"not a regular file \(a named pipe\): not read")
    _swap(path, lambda: path.symlink_to("/dev/zero"))  # before: memory filled
    seen, follow.seen = follow.seen, []  # a new line, not the first link's
    follow.wait_for(r"run.log: leaves the checked tree")
    follow.proc.send_signal(signal.SIGTERM)
    follow.wait_for("the log at the path was not checked")  # before end() reads stderr
    code, out = follow.end()
    assert code == 2  # the path ended as something not read: not a pass
    assert SECRET.decode() not in out + "".join(seen + follow.seen)


def test_a_regular_file_back_at_the_path_is_checked_from_its_start(
    corpus: Path, tmp_path: Path, follows: list[Follow]
) -> None:
    lines = _lines(corpus)
    path = _growing(tmp_path)
    _write(path, lines[: _index(lines, "run_start")])
    follow = Follow(["--until", "run_stop", str(path)])
    follows.append(follow)
    follow.wait_for("status:")
    _swap(path, lambda: os.mkfifo(path))
    follow.wait_for("a named pipe")
    _swap(path, lambda: _write(path, lines))
    follow.wait_for("started over")
    code, out = follow.end()
    assert code == 0 and "pass" in out
