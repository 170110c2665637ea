"""Plain fixed-width tables for the core commands (no rich: the core install has none).

Columns are separated by two spaces, numbers right-aligned; a title goes above.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO


def write_table(
    out: TextIO,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right: Sequence[str] = (),
    title: str = "",
) -> None:
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    if title:
        out.write(f"{title}\n")
    for cells in (header, *rows):
        parts = [
            cell.rjust(width) if name in right else cell.ljust(width)
            for name, cell, width in zip(header, cells, widths, strict=True)
        ]
        out.write("  ".join(parts).rstrip() + "\n")
