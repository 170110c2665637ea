"""``mllog-check parse``: output formats, exit codes, problems on stderr, determinism."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import FIXTURES

from mllog_check.cli import cli
from mllog_check.reporters import records as record_formats

PARSE = FIXTURES / "parse"
CLEAN, ERRORS, V05, V06 = (
    str(PARSE / n) for n in ["clean_v1.txt", "errors.txt", "v05.txt", "v06.txt"]
)


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, ["parse", *args])
    assert "Traceback" not in result.output + result.stderr
    return result


def test_jsonl_one_object_per_record_with_every_field() -> None:
    out = run(CLEAN)
    assert (out.exit_code, out.stderr) == (0, "")
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["key"] for r in rows] == [
        "submission_benchmark",
        "init_start",
        "init_stop",
        "run_start",
        "run_stop",
    ]
    assert rows[1] == {
        "path": CLEAN,
        "line": 2,
        "column": 4,
        "generation": "mllog",
        "namespace": "",
        "timestamp_ms": 1621532919229,
        "event_type": "INTERVAL_START",
        "key": "init_start",
        "value": None,
        "metadata": {"file": "train.py", "lineno": 20},
    }
    assert (rows[2]["namespace"], rows[2]["event_type"], rows[2]["timestamp_ms"]) == (
        3,
        None,
        1621532986292.5,
    )


def test_csv_header_and_json_cells() -> None:
    out = run("--format", "csv", V05)
    assert out.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert list(rows[0]) == [
        "path",
        "line",
        "column",
        "generation",
        "namespace",
        "timestamp_ms",
        "event_type",
        "key",
        "value",
        "metadata",
    ]
    assert [(r["line"], r["column"], r["key"], r["value"]) for r in rows] == [
        ("1", "1", "eval_offset", "0"),
        ("2", "15", "run_clear_caches", "null"),
        ("3", "1", "opt_name", '"adam"'),
        ("4", "1", "eval_accuracy", '{"epoch":1,"value":0.05}'),
    ]
    assert json.loads(rows[0]["metadata"]) == {"file": "benchmark_cnn.py", "lineno": 1552}


def test_table_groups_records_by_file() -> None:
    out = run("--format", "table", V06, V05)
    assert out.exit_code == 0
    text = out.stdout
    assert text.index(V06) < text.index("submission_org") < text.index(V05) < text.index("opt_name")
    assert "2:1" in text and "1560881700860.0" in text and '"NVIDIA"' in text


def test_exit_1_when_lines_fail_and_problems_sorted_on_stderr() -> None:
    out = run("-q", ERRORS, CLEAN)
    assert out.exit_code == 1
    assert out.stdout == ""
    located = [line for line in out.stderr.splitlines() if not line.startswith("    ")]
    lines = [int(loc.split(":")[1]) for loc in located]
    assert lines == sorted(lines) == [2, 3, 4, 5, 6, 7, 8]
    codes = [loc.split(": ")[2].split()[0] for loc in located]
    assert codes == ["MLS001", "MLS002", "MLS003", "MLS004", "MLS005", "MLS007", "MLS012"]
    # each problem is followed by the offending text
    assert out.stderr.splitlines()[1] == '    :::MLL submission_org: {"value": "NVIDIA"}'


def test_problems_of_several_files_are_sorted_by_path(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    shutil.copy(ERRORS, second)
    shutil.copy(ERRORS, first)
    out = run("-q", str(second), str(first))
    paths = [line.split(":")[0] for line in out.stderr.splitlines() if not line.startswith(" ")]
    assert paths == sorted(paths) and paths[0] == str(first)


def test_warnings_alone_exit_0() -> None:
    out = run("-q", V06, str(PARSE / "empty_marker_free.txt"))
    assert out.exit_code == 0
    assert "warning: MLS011 no MLPerf marker in 2 line(s)" in out.stderr


def test_exit_2_on_input_error_even_with_good_files(tmp_path: Path) -> None:
    out = run(CLEAN, str(tmp_path / "nope.txt"))
    assert out.exit_code == 2
    assert len(out.stdout.splitlines()) == 5  # the readable file is still parsed


@pytest.mark.parametrize(
    "args", [[], ["--format", "xml", CLEAN], ["--no-such-option", CLEAN]], ids=str
)
def test_exit_2_on_usage_errors(args: list[str]) -> None:
    out = run(*args)
    assert out.exit_code == 2
    assert "Usage:" in out.stderr


@pytest.mark.parametrize("fmt", list(record_formats.FORMATS))
def test_output_is_deterministic(fmt: str) -> None:
    paths = [str(PARSE)]
    first, second = run("--format", fmt, *paths), run("--format", fmt, *paths)
    assert first.stdout == second.stdout and first.stderr == second.stderr
    assert first.stdout


def test_every_record_format_is_offered_and_holds_every_record() -> None:
    """The registry is what --format offers; each format writes every record of a log
    (a JSON line, a CSV row, a table row each, below the header lines)."""
    import click

    from mllog_check.cli.parse import parse

    option = next(p for p in parse.params if p.name == "fmt")
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == list(record_formats.FORMATS)
    count = len(run("--format", "jsonl", CLEAN).stdout.splitlines())
    assert count > 0
    assert len(run("--format", "csv", CLEAN).stdout.splitlines()) == count + 1
    table = run("--format", "table", CLEAN).stdout.splitlines()
    assert len(table) == count + 2  # the file's name, the column header
