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


# -- YAML: long strings behind anchors ------------------------------------------------


def test_a_long_string_repeated_by_aliases_is_refused_with_a_short_message(
    tmp_path: Path,
) -> None:
    from mllog_check.cost.prices import PriceCatalogError, load_catalog

    sample = (Path(__file__).resolve().parents[1] / "fixtures/prices/sample.yaml").read_text()
    # A 64 KB description under an anchor, a list of 300 aliases of it as "includes",
    # and four of those lists as aliases: 1,500 nodes, 98 MB of text expanded (the
    # schema's message quoted it whole; a 96 KB catalog took 2.27 GB).
    entry = (
        f"  - system: IPU-POD16\n    description: &s {'x' * 65_536}\n"
        f"    includes: &l [{', '.join(['*s'] * 300)}]\n    aliases: [*l, *l, *l, *l]\n"
        "    price: 1\n    currency: USD\n    kind: list\n    source: test\n"
        "    date: 2021-07-01\n"
    )
    catalog = tmp_path / "prices.yaml"
    catalog.write_text(sample.replace("prices:\n", "prices:\n" + entry, 1), "utf-8")
    assert len(catalog.read_bytes()) < 100_000
    with pytest.raises(PriceCatalogError, match="characters of text") as caught:
        load_catalog(catalog)
    assert len(str(caught.value)) < 5_000


def test_error_messages_are_bounded() -> None:
    from mllog_check.errors import MESSAGE_LIMIT, MllogCheckError

    error = MllogCheckError("bad value: " + "y" * 10_000_000)
    assert len(str(error)) < MESSAGE_LIMIT + 100 and "characters cut" in str(error)
    assert str(MllogCheckError("short")) == "short"
