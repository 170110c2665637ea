"""The registry of record formats: how ``parse`` streams a log's records (the third
registry beside ``reporters.FORMATS`` for problems and ``reporters.tables.FORMATS`` for
tables; docs/design.md, "Output formats"). Each writer takes the records as they come
and holds none of them; adding a format is one entry in ``FORMATS`` and its writer."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from typing import NamedTuple, TextIO

import orjson

from ..records import Record
from ..safety import csv_row, human, json_text, printable

_DUMP_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _json(value: object) -> str:
    """JSON text; U+2028, U+0085 and invisible characters as escapes (orjson writes
    them raw: a JSON-lines reader splitting on them would see a broken line)."""
    try:
        return json_text(orjson.dumps(value, option=_DUMP_OPTS).decode())
    except TypeError:  # inf/nan are written as null by orjson; other oddities as text
        return json_text(orjson.dumps(str(value)).decode())


def write_jsonl(records: Iterable[Record], out: TextIO) -> None:
    """One JSON object per record and line."""
    for rec in records:
        out.write(_json(rec.to_dict()))
        out.write("\n")


def write_csv(records: Iterable[Record], out: TextIO) -> None:
    """A header, then a row per record: its columns in order, value and metadata as
    JSON text, no cell a spreadsheet runs as a formula."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(Record._fields)
    for rec in records:
        row = {**rec.to_dict(), "value": _json(rec.value), "metadata": _json(rec.metadata)}
        writer.writerow(csv_row(row.values()))


def write_table(records: Iterable[Record], out: TextIO) -> None:
    """Fixed-width rows under each file's name, written as they come."""
    current = None
    for rec in records:
        if rec.path != current:
            if current is not None:
                out.write("\n")
            current = rec.path
            out.write(human("{}\n", printable(rec.path)))
            out.write(_row("line:col", "time_ms", "key", "value"))
        value = printable(_json(rec.value)[:80])
        key = printable(rec.key)
        out.write(_row(f"{rec.line}:{rec.column}", str(rec.timestamp_ms), key, value))


def _row(location: str, time_ms: str, key: str, value: str) -> str:
    return f"{location:<10} {time_ms:<17} {key:<40} {value}".rstrip() + "\n"


class RecordFormat(NamedTuple):
    write: Callable[[Iterable[Record], TextIO], None]
    label: str  # its name in prose (docs/design.md's table of formats)


FORMATS: dict[str, RecordFormat] = {
    "jsonl": RecordFormat(write_jsonl, "JSON lines"),
    "csv": RecordFormat(write_csv, "CSV"),
    "table": RecordFormat(write_table, "table"),
}


def write(name: str, records: Iterable[Record], out: TextIO) -> None:
    """``records`` in the format ``name`` (a key of ``FORMATS``), as they come."""
    FORMATS[name].write(records, out)
