"""Writers shared by commands (records); problem formats live in mllog_check.reporters."""

from __future__ import annotations

import csv
from typing import TextIO

import orjson

from ..problems import Problem
from ..records import ParseResult, Record

_DUMP_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _json(value: object) -> str:
    try:
        return orjson.dumps(value, option=_DUMP_OPTS).decode()
    except TypeError:  # inf/nan are written as null by orjson; other oddities as text
        return orjson.dumps(str(value)).decode()


def write_records(results: list[ParseResult], fmt: str, out: TextIO) -> None:
    records = [r for result in results for r in result.records]
    if fmt == "jsonl":
        for rec in records:
            out.write(_json(rec.to_dict()))
            out.write("\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(Record._fields)
        for rec in records:
            row = rec.to_dict()
            row["value"] = _json(rec.value)
            row["metadata"] = _json(rec.metadata)
            writer.writerow(row.values())
    else:
        _write_table(records, out)


def _write_table(records: list[Record], out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("line:col", "time_ms", "key", "value", box=None, header_style="bold")
    current = None
    console = Console(file=out, width=200 if not out.isatty() else None)
    for rec in records:
        if rec.path != current:
            if current is not None:
                console.print(table)
                table = Table("line:col", "time_ms", "key", "value", box=None)
            current = rec.path
            console.print(f"[bold]{rec.path}[/bold]")
        value = _json(rec.value)
        table.add_row(f"{rec.line}:{rec.column}", str(rec.timestamp_ms), rec.key, value[:80])
    if current is not None:
        console.print(table)


def write_problems_text(problems: list[Problem], out: TextIO) -> None:
    for p in problems:
        name = f" [{p.name}]" if p.name else ""
        out.write(f"{p.location()}: {p.severity}: {p.rule} {p.message}{name}\n")
        if p.text:
            out.write(f"    {p.text}\n")
