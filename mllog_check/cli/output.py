"""Writers shared by commands (records); problem formats live in mllog_check.reporters."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TextIO

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


def write_records(records: Iterable[Record], fmt: str, out: TextIO) -> None:
    """Write records as they come (a stream: nothing is held)."""
    if fmt == "jsonl":
        for rec in records:
            out.write(_json(rec.to_dict()))
            out.write("\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(Record._fields)
        for rec in records:
            # The row's columns in order, value and metadata as JSON text.
            row = {**rec.to_dict(), "value": _json(rec.value), "metadata": _json(rec.metadata)}
            writer.writerow(csv_row(row.values()))  # no formula for a spreadsheet
    else:
        _write_table(records, out)


def _write_table(records: Iterable[Record], out: TextIO) -> None:
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
