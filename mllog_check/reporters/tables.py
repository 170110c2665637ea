"""Table formats: one registry of writers for ``score``, ``cost`` and ``audit``.

A :class:`Table` is named columns and rows (mappings keyed by column, or sequences in
column order). A writer is ``write(table, out)``; ``out`` is a text stream, or a binary
one for the formats registered ``binary`` (Parquet). Add a format with one entry in
:data:`FORMATS`, naming the commands that offer it (:func:`offered`). pandas, pyarrow
and rich load only inside the writer that needs them; :func:`require` names the
analysis extra before a command does any work.

Problem formats (text, JSON, CSV, JUnit, SARIF, GitHub) are the other registry, in
``mllog_check.reporters``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, TextIO


@dataclass(frozen=True)
class Form:
    """How a command's tables are encoded where two encodings exist.

    Each command keeps the one its files have always had, byte for byte:

    - ``json``: ``"orjson"`` (indent 2, strict JSON: NaN and infinities become null)
      or ``"json"`` (the json module, indent 1, ``Infinity`` kept and unknown objects
      as their text: the score command's document, docs/scores.md).
    - ``parquet``: ``"arrow"`` (each column typed from its values, lists and dicts as
      text, mixed types as text; no pandas) or ``"pandas"`` (through a DataFrame: lists
      stay lists, integers with gaps become floats; the score command's files).
    - ``grid``: the human table as ``"plain"`` fixed-width text (core install) or a
      ``"rich"`` table (the analysis extra; the cost command's).
    """

    json: Literal["orjson", "json"] = "orjson"
    parquet: Literal["arrow", "pandas"] = "arrow"
    grid: Literal["plain", "rich"] = "plain"


Row = Mapping[str, Any] | Sequence[Any]


@dataclass(frozen=True)
class Table:
    """Rows under named columns, and what some formats add to them."""

    columns: Sequence[str]
    rows: Sequence[Row]
    form: Form = Form()
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


def _nothing(form: Form) -> tuple[str, ...]:
    return ()


SCORE, COST, AUDIT, TRENDS, HPARAMS = "score", "cost", "audit", "trends", "hparams"


@dataclass(frozen=True)
class TableFormat:
    write: Writer
    suffix: str  # of the files written in this format
    commands: tuple[str, ...]  # that offer it (the audit writes its files in them)
    binary: bool = False  # the writer takes a binary stream
    # The analysis extra's modules its writer imports for a form.
    needs: Callable[[Form], tuple[str, ...]] = _nothing
    label: str = ""  # its name in prose, when not its name (docs/design.md, "Output formats")


def write_text(table: Table, out: TextIO) -> None:
    """The human table: title, header and rows (None as empty), then the footer."""
    from ..safety import printable, printable_lines  # names and values from the inputs

    header = [printable(str(c)) for c in table.columns]
    body = [["" if v is None else printable(str(v)) for v in cells] for cells in table.cells()]
    # Each line escaped whole: its own line feeds are shown, never written.
    title = "\n".join(printable_lines(printable(line)) for line in table.title)
    if table.form.grid == "rich":
        _rich_grid(header, body, title, out)
    else:
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


def _rich_grid(header: list[str], body: list[list[str]], title: str, out: TextIO) -> None:
    console = _extra("rich.console", "a rich table").Console
    grid = _extra("rich.table", "a rich table").Table(
        *header, box=None, header_style="bold", pad_edge=False
    )
    if title:
        out.write(title + "\n")  # escaped line by line (write_text)
    text = _extra("rich.text", "a rich table").Text
    for cells in body:
        grid.add_row(*(text(cell) for cell in cells))  # Text: no rich markup from the data
    # A fixed width off a terminal, so that files and pipes get the same lines.
    console(file=out, width=None if out.isatty() else 260, highlight=False).print(grid)


def write_csv(table: Table, out: TextIO) -> None:
    """The csv module (no pandas): None as empty, lists and dicts as their text; a text
    cell a spreadsheet would run as a formula gets a leading ' (``safety.csv_cell``)."""
    from ..safety import csv_row

    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_row(table.columns))
    writer.writerows(csv_row(cells) for cells in table.cells())


def write_json(table: Table, out: TextIO) -> None:
    """The table's document, else its rows as a list of objects."""
    document = table.records() if table.document is None else table.document
    if table.form.json == "json":
        import json

        # json (not orjson): seeds and values are whatever the logs hold, Infinity included.
        json.dump(document, out, indent=1, sort_keys=False, default=str)
    else:
        import orjson

        from ..safety import json_text  # orjson writes U+2028 and the like raw

        out.write(json_text(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()))
    out.write("\n")


def write_parquet(table: Table, out: IO[bytes]) -> None:
    if table.form.parquet == "pandas":
        pandas = _extra("pandas", "Parquet output")
        _extra("pyarrow", "Parquet output")
        columns = list(zip(*table.cells(), strict=True)) or [() for _ in table.columns]
        data = {
            name: [_float(v) for v in cells] if name in table.floats else _pandas_column(cells)
            for name, cells in zip(table.columns, columns, strict=True)
        }
        frame = pandas.DataFrame(data, columns=list(table.columns))
        for column in table.floats:
            if column in frame.columns:
                frame[column] = frame[column].astype("float64")
        frame.to_parquet(out, index=False)
        return
    # pyarrow alone: importing pandas here would cost an audit most of a second.
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


def _pandas_column(values: Sequence[Any]) -> list[Any]:
    """A column for pandas' Parquet writer: valid UTF-8 text; all as text when lists mix
    with other values or their items are not of one scalar kind (a log's seeds: a list in
    one run, a number or a list of lists in another), or when an integer is beyond int64."""
    cells = _int64_or_text([_utf8(v) for v in values])
    lists = [isinstance(v, list | tuple) for v in cells if v is not None]
    if not any(lists):
        return cells
    items = {type(i) for v in cells if isinstance(v, list | tuple) for i in v if i is not None}
    uniform = len(items) <= 1 or items <= {int, float}
    wide = any(type(i) is int and not -(2**63) <= i < 2**63 for v in cells if v for i in v)
    if all(lists) and uniform and not wide and not items & {list, tuple, dict}:
        return cells
    return [None if v is None else str(v) for v in cells]


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


def _text_needs(form: Form) -> tuple[str, ...]:
    return ("rich",) if form.grid == "rich" else ()


def _parquet_needs(form: Form) -> tuple[str, ...]:
    return ("pandas", "pyarrow") if form.parquet == "pandas" else ("pyarrow",)


# name -> format, in the order commands list them.
FORMATS: dict[str, TableFormat] = {
    "table": TableFormat(write_text, "txt", (SCORE, COST, TRENDS, HPARAMS), needs=_text_needs),
    "csv": TableFormat(write_csv, "csv", (SCORE, COST, AUDIT, TRENDS, HPARAMS), label="CSV"),
    "json": TableFormat(write_json, "json", (SCORE, COST, AUDIT, TRENDS, HPARAMS), label="JSON"),
    "parquet": TableFormat(
        write_parquet,
        "parquet",
        (SCORE, COST, AUDIT, TRENDS, HPARAMS),
        binary=True,
        needs=_parquet_needs,
        label="Parquet",
    ),
}


def names() -> list[str]:
    return list(FORMATS)


def offered(command: str) -> list[str]:
    """The formats ``command`` offers, in the registry's order (its --format choices)."""
    return [name for name, f in FORMATS.items() if command in f.commands]


def needs(name: str, form: Form = Form()) -> tuple[str, ...]:
    """The analysis extra's modules the writer of ``name`` imports for ``form``."""
    return FORMATS[name].needs(form)


def require(name: str, what: str, form: Form = Form()) -> None:
    """Import what writing ``name`` needs now, or MissingExtra naming the extra."""
    for module in needs(name, form):
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
