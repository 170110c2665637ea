"""Table formats: one registry of writers for ``score``, ``cost`` and ``audit``.

A :class:`Table` is named columns and rows (mappings keyed by column, or sequences in
column order). Each format is one writer, ``write(table, out)``, the same for every
command: one JSON encoder, one Parquet path (pyarrow), one human table. ``out`` is a
text stream, or a binary one for the formats registered ``binary`` (Parquet). Add a
format with one entry in :data:`FORMATS`, naming the commands that offer it
(:func:`offered`) and the analysis extra's modules its writer imports (``needs``;
:func:`require` names the extra before a command does any work).

Problem formats (text, JSON, CSV, JUnit, SARIF, GitHub) are the other registry, in
``mllog_check.reporters``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO

Row = Mapping[str, Any] | Sequence[Any]


@dataclass(frozen=True)
class Table:
    """Rows under named columns, and what some formats add to them."""

    columns: Sequence[str]
    rows: Sequence[Row]
    # JSON: the document to write instead of the rows (notes, nested values).
    document: Any = None
    # The human table: lines above, right-aligned columns, lines written after it. Lines,
    # not text: each is escaped whole (a name's line feed stays on its line; write_text).
    title: tuple[str, ...] = ()
    right: Collection[str] = ()
    footer: tuple[str, ...] = ()
    # Parquet: columns written as float64 whatever their values (all null, or whole
    # numbers), so that a column has one type in every file and frame.
    floats: Collection[str] = ()
    # Parquet: the type of each column named ("string", "int64", "float64", "bool"), so
    # that a table has one schema in every file whatever its rows hold (the audit's
    # tables: docs/audit.md, "Parquet schemas"); a value of another type is converted.
    types: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.title, str) or isinstance(self.footer, str):
            raise TypeError("a table's title and footer are tuples of lines")

    def cells(self) -> Iterator[list[Any]]:
        """Each row's values in column order (missing keys are None)."""
        for row in self.rows:
            if isinstance(row, Mapping):
                yield [row.get(c) for c in self.columns]
            else:
                yield list(row)

    def records(self) -> list[dict[str, object]]:
        """Each row as a mapping of column to value, in column order."""
        return [dict(zip(self.columns, cells, strict=True)) for cells in self.cells()]


Writer = Callable[[Table, Any], None]


SCORE, COST, AUDIT, TRENDS, HPARAMS = "score", "cost", "audit", "trends", "hparams"


@dataclass(frozen=True)
class TableFormat:
    write: Writer
    suffix: str  # of the files written in this format
    commands: tuple[str, ...]  # that offer it (the audit writes its files in them)
    binary: bool = False  # the writer takes a binary stream
    needs: tuple[str, ...] = ()  # the analysis extra's modules its writer imports
    label: str = ""  # its name in prose, when not its name (docs/design.md, "Output formats")


def write_text(table: Table, out: TextIO) -> None:
    """The human table: title, header and rows (None as empty), then the footer."""
    from ..safety import printable, printable_lines  # names and values from the inputs

    header = [printable(str(c)) for c in table.columns]
    body = [["" if v is None else printable(str(v)) for v in cells] for cells in table.cells()]
    # Each line escaped whole: its own line feeds are shown, never written.
    title = "\n".join(printable_lines(printable(line)) for line in table.title)
    write_grid(out, header, body, right=table.right, title=title)
    out.write("".join(printable_lines(printable(line)) + "\n" for line in table.footer))


def write_grid(
    out: TextIO,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    right: Collection[str] = (),
    title: str = "",
) -> None:
    """Fixed-width text: columns two spaces apart, ``right`` columns right-aligned."""
    widths = [len(h) for h in header]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    if title:
        out.write(title + "\n")  # escaped line by line (write_text)
    for cells in (header, *rows):
        parts = [
            cell.rjust(width) if name in right else cell.ljust(width)
            for name, cell, width in zip(header, cells, widths, strict=True)
        ]
        out.write("  ".join(parts).rstrip() + "\n")


def write_csv(table: Table, out: TextIO) -> None:
    """The csv module (no pandas): None as empty, lists and dicts as their text; a text
    cell a spreadsheet would run as a formula gets a leading ' (``safety.csv_cell``)."""
    from ..safety import csv_row

    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_row(table.columns))
    writer.writerows(csv_row(cells) for cells in table.cells())


def write_json(table: Table, out: TextIO) -> None:
    """The table's document, else its rows as a list of objects: orjson, indent 2, strict
    JSON (NaN and infinities as null), an integer beyond 64 bits (a seed as logged) and
    any other value JSON has no form for as its text."""
    from ..safety import json_text  # orjson writes U+2028 and the like raw

    if table.document is not None:
        out.write(json_text(_json_dumps(table.document)))
        out.write("\n")
        return
    # The rows a thousand at a time, each batch's items as the whole list's would be
    # written: the same text, never the whole held (the audit's anomalies: 79 MB at the
    # record's size; docs/audit.md, "Cold, cached, memory").
    out.write("[")
    written = False
    for batch in _batches(table.cells(), _JSON_BATCH):
        items = _json_dumps([dict(zip(table.columns, c, strict=True)) for c in batch])
        out.write(("\n" if not written else ",\n") + json_text(items[2:-2]))
        written = True
    out.write("\n]\n" if written else "]\n")


_JSON_BATCH = 1000  # rows per orjson call


def _batches(items: Iterator[list[Any]], size: int) -> Iterator[list[list[Any]]]:
    batch: list[list[Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _json_dumps(document: Any) -> str:
    import orjson

    option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    try:
        return orjson.dumps(document, option=option, default=str).decode()
    except TypeError:  # an integer orjson cannot write: the document with it as text
        return orjson.dumps(_wide_as_text(document), option=option, default=str).decode()


def _wide_as_text(value: Any, depth: int = 0) -> Any:
    """``value`` with every integer beyond 64 bits as its text, and a container nested
    deeper than orjson writes (a log's value) as its text too."""
    if isinstance(value, Mapping | list | tuple) and depth > _DEEPEST:
        return str(value)
    if isinstance(value, Mapping):
        return {k: _wide_as_text(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_wide_as_text(v, depth + 1) for v in value]
    if type(value) is int and not -(2**63) <= value < 2**64:
        return str(value)
    return value


_DEEPEST = 200  # orjson refuses documents nested deeper than 255


def write_parquet(table: Table, out: IO[bytes]) -> None:
    """pyarrow alone (importing pandas would cost a command most of a second): each
    column typed as the table says (``types``, ``floats``), else from its values: lists
    of one kind of scalar stay lists, mixed values become text (docs/design.md)."""
    pa = _extra("pyarrow", "Parquet output")
    pq = _extra("pyarrow.parquet", "Parquet output")

    values = list(zip(*table.cells(), strict=True)) or [() for _ in table.columns]
    arrays = {
        column: (
            _typed_column(pa, table.types[column], column_values)
            if column in table.types
            else pa.array([_float(v) for v in column_values], type=pa.float64())
            if column in table.floats
            else _arrow_column(pa, column_values)
        )
        for column, column_values in zip(table.columns, values, strict=True)
    }
    pq.write_table(pa.table(arrays), out)


def _typed_column(pa: Any, kind: str, raw: Sequence[Any]) -> Any:
    convert = _CONVERT[kind]
    arrow = {"string": pa.string, "int64": pa.int64, "float64": pa.float64, "bool": pa.bool_}
    return pa.array([None if v is None else convert(v) for v in raw], type=arrow[kind]())


def _whole(value: Any) -> int | None:
    """An int64 cell: a whole number; anything else is no value of that column."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and -(2**63) <= value < 2**63:
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return None


def _real(value: Any) -> float | None:
    return _float(value) if isinstance(value, int | float) else None


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "string": lambda v: _utf8(v if isinstance(v, str) else str(_scalar(v))),
    "int64": _whole,
    "float64": _real,
    "bool": lambda v: v if isinstance(v, bool) else None,
}
# The Parquet column types a Table may name.
COLUMN_TYPES = tuple(_CONVERT)


def _arrow_column(pa: Any, raw: Sequence[Any]) -> Any:
    lists = _lists(raw)
    if lists is not None:
        return pa.array(lists)
    values = _int64_or_text([_utf8(_scalar(v)) for v in raw])
    kinds = {type(v) for v in values if v is not None}
    if len(kinds) > 1 and not kinds <= {int, float}:
        values = [None if v is None else str(v) for v in values]  # mixed: as text
    return pa.array(values, type=None if kinds else pa.string())


def _float(value: Any) -> float | None:
    """A float64 cell; an integer beyond floats (a seed a log may hold) is no value."""
    try:
        return None if value is None else float(value)
    except OverflowError:
        return None


def _utf8(value: Any) -> Any:
    """Text Parquet can hold: a lone surrogate (a log's "\\ud800", read as JSON) becomes
    its escape; lists and tuples of text alike; other values stay."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, list | tuple):
        return type(value)(_utf8(v) for v in value)
    return value


def _lists(raw: Sequence[Any]) -> list[Any] | None:
    """A column of lists whose items are of one scalar kind (numbers count as one: a
    run's seeds), as lists of valid UTF-8; None when it is not one (a list in one row,
    a number or a list of lists in another; an integer beyond int64): then it is text."""
    cells = [None if v is None else _utf8(v) for v in raw]
    present = [v for v in cells if v is not None]
    if not present or not all(isinstance(v, list | tuple) for v in present):
        return None
    items = {type(i) for v in present for i in v if i is not None}
    if not (len(items) <= 1 or items <= {int, float}) or items & {list, tuple, dict}:
        return None
    if any(type(i) is int and not -(2**63) <= i < 2**63 for v in present for i in v):
        return None
    return [None if v is None else list(v) for v in cells]


def _int64_or_text(values: Sequence[Any]) -> list[Any]:
    """A column's cells; all as text when one is an integer beyond int64 (a seed, a node
    count as logged), which Parquet cannot hold as a number (docs/security.md)."""
    if any(type(v) is int and not -(2**63) <= v < 2**63 for v in values):
        return [None if v is None else str(v) for v in values]
    return list(values)


def _extra(module: str, what: str) -> Any:
    """Import a module of the analysis extra, or MissingExtra naming the extra."""
    from ..extras import require as import_extra

    return import_extra(module, what)


def _scalar(value: Any) -> Any:
    """Scalars stay; anything else (lists, dicts) becomes its text."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    return str(value)


# name -> format, in the order commands list them.
FORMATS: dict[str, TableFormat] = {
    "table": TableFormat(write_text, "txt", (SCORE, COST, TRENDS, HPARAMS)),
    "csv": TableFormat(write_csv, "csv", (SCORE, COST, AUDIT, TRENDS, HPARAMS), label="CSV"),
    "json": TableFormat(write_json, "json", (SCORE, COST, AUDIT, TRENDS, HPARAMS), label="JSON"),
    "parquet": TableFormat(
        write_parquet,
        "parquet",
        (SCORE, COST, AUDIT, TRENDS, HPARAMS),
        binary=True,
        needs=("pyarrow",),
        label="Parquet",
    ),
}


def names() -> list[str]:
    return list(FORMATS)


def offered(command: str) -> list[str]:
    """The formats ``command`` offers, in the registry's order (its --format choices)."""
    return [name for name, f in FORMATS.items() if command in f.commands]


def needs(name: str) -> tuple[str, ...]:
    """The analysis extra's modules the writer of ``name`` imports."""
    return FORMATS[name].needs


def require(name: str, what: str) -> None:
    """Import what writing ``name`` needs now, or MissingExtra naming the extra."""
    for module in needs(name):
        _extra(module, what)


def write(name: str, tables: Table | Sequence[Table], out: IO[Any]) -> None:
    """Write one table, or several one after the other, in format ``name``."""
    writer = FORMATS[name].write
    for table in [tables] if isinstance(tables, Table) else tables:
        writer(table, out)


@contextmanager
def opened(name: str, path: str | Path) -> Iterator[IO[Any]]:
    """``path`` opened for format ``name``: binary, or UTF-8 text written as is."""
    from ..outputs import open_output  # never through a link (docs/security.md)

    with open_output(path, binary=FORMATS[name].binary, newline="") as out:
        yield out


def write_file(name: str, tables: Table | Sequence[Table], path: str | Path) -> Path:
    with opened(name, path) as out:
        write(name, tables, out)
    return Path(path)


def stdout_for(name: str) -> IO[Any]:
    """Standard output as the format's writer wants it (its buffer for binary)."""
    import sys

    return sys.stdout.buffer if FORMATS[name].binary else sys.stdout
