"""``mllog-check parse``: records as JSON lines, CSV or a table."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TextIO

import click

from ..parsing import stream_paths
from ..records import ParseResult, Record
from ..reporters import records as record_formats
from ..reporters.text import write_problems
from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(record_formats.FORMATS)),
    default="jsonl",
    show_default=True,
    help="How records are written to stdout.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print problems only, no records.")
def parse(paths: tuple[str, ...], fmt: str, quiet: bool) -> None:
    """Parse MLPerf logs (files, directories, .gz, '-' for stdin) into records.

    Problems (syntax errors and warnings) go to stderr as path:line:col lines.
    Exit 0 when every marker line parsed, 1 when some failed, 2 when an input
    could not be read.
    """
    results: list[ParseResult] = []  # problems and counts only: records are streamed

    def records() -> Iterator[Record]:
        for item in stream_paths(list(paths)):
            if isinstance(item, ParseResult):
                results.append(item)
                continue
            yield from item
            results.append(item.result)

    if quiet:
        for _ in records():
            pass
    else:
        record_formats.write(fmt, records(), sys.stdout)
    sys.exit(exit_code(results, sys.stderr))


def exit_code(results: list[ParseResult], err: TextIO) -> int:
    problems = sorted(p for r in results for p in r.problems)
    write_problems(problems, err)
    if not results:  # nothing read is never success (as check does)
        err.write("mllog-check parse: no files found\n")
        return EXIT_USAGE
    if any(r.input_error for r in results):
        return EXIT_USAGE
    if any(p.is_error for p in problems):
        return EXIT_PROBLEMS
    return EXIT_OK
