"""Hostile inputs, fourth look (docs/security.md): bounds of check --follow, rule problems,
gzip members, YAML strings, project settings; extreme values that must not raise.

Each test plants its fault in a copy of a published v5.0 log or tree (``test_hostile.tree``).
"""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest
from test_hostile import _main, _v5_log, bench, tree  # noqa: F401 - tree is a fixture

pytestmark = pytest.mark.corpus


# -- gzip members --------------------------------------------------------------------


def test_many_gzip_members_in_one_chunk_read_in_linear_time(tree: Path, tmp_path: Path) -> None:
    from mllog_check.parsing import parse_file

    log = _v5_log(tree)
    half = len(log) // 2
    path = tmp_path / "result_0.txt.gz"
    # 100,000 empty members (2 MB) between the log's two halves: each member's end made
    # zlib copy the rest of the 4 MiB chunk (15 s, quadratic; 200,000 took a minute).
    empty = gzip.compress(b"")
    path.write_bytes(gzip.compress(log[:half]) + empty * 100_000 + gzip.compress(log[half:]))
    start = time.perf_counter()
    result = parse_file(str(path))
    assert time.perf_counter() - start < 5
    assert not result.input_error
    plain = parse_file(str(bench(tree) / "result_0.txt"))
    assert [r[1:] for r in result.records] == [r[1:] for r in plain.records]
