"""One registry of table formats (table, CSV, JSON, Parquet) for score, cost and audit.

Every format a command offers is accepted, and its data formats write the same rows:
CSV, JSON and Parquet are read back and compared value by value, on fixtures and on
real corpus folders.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from pathlib import Path
from typing import Any

import click
import orjson
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import FIXTURES, ROOT
from hypothesis import given
from hypothesis import strategies as st

from mllog_check.cli import cli
from mllog_check.extras import MissingExtra
from mllog_check.reporters import tables
from mllog_check.safety import json_text
from mllog_check.submission.audit import OUTPUT_FILES, run_audit, write_outputs

PRICES = FIXTURES / "prices" / "sample.csv"


def _choices(command: str) -> list[str]:
    found = cli.get_command(click.Context(cli), command)
    assert found is not None
    option = next(p for p in found.params if p.name == "fmt")
    assert isinstance(option.type, click.Choice)
    return list(option.type.choices)


def _canon(value: Any) -> Any:
    """One comparable form for a value read from CSV (text), JSON or Parquet."""
    if hasattr(value, "tolist"):  # numpy scalars and arrays from Parquet
        value = value.tolist()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, list):
        return str(value)
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return None if math.isnan(number) else number


def _csv(text: str) -> list[dict[str, Any]]:
    return [{k: _canon(v) for k, v in row.items()} for row in csv.DictReader(io.StringIO(text))]


def _parquet(data: bytes | Path) -> list[dict[str, Any]]:
    frame = pd.read_parquet(io.BytesIO(data) if isinstance(data, bytes) else data)
    return [{k: _canon(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _json_rows(rows: list[dict[str, Any]], columns: set[str]) -> list[dict[str, Any]]:
    return [{k: _canon(v) for k, v in row.items() if k in columns} for row in rows]


def _only(rows: list[dict[str, Any]], keys: set[str]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k in keys} for row in rows]


# --- the registry ---------------------------------------------------------------------


def test_every_registered_format_renders_the_sample() -> None:
    """Properties of the registry, not its list today: each format once, offered by a
    table command, writing the sample (bytes for a binary one, text naming every row
    for the others); the human table first; the audit, which writes files, offers only
    machine formats (adding a format touches its own files and tests only)."""
    commands = {tables.SCORE, tables.COST, tables.AUDIT, tables.TRENDS, tables.HPARAMS}
    names = tables.names()
    assert names[0] == "table" and len(set(names)) == len(names)
    for name in names:
        fmt = tables.FORMATS[name]
        assert fmt.commands and set(fmt.commands) <= commands, name
        written = _written(name, SMALL)
        assert isinstance(written, bytes) == fmt.binary and written, name
        if not fmt.binary:
            assert all(row["name"] in written for row in SMALL.rows), name
    assert "table" not in tables.offered("audit") and tables.offered("audit")


def test_commands_take_their_format_choices_from_the_registry() -> None:
    assert _choices("score") == tables.offered("score")
    assert _choices("cost") == tables.offered("cost")
    assert _choices("hparams") == tables.offered("hparams") == tables.names()
    assert sorted({fmt for _, fmt in OUTPUT_FILES}) == tables.offered("audit")


@pytest.mark.parametrize("command", ["score", "cost"])
def test_the_docs_table_each_commands_formats(command: str) -> None:
    """README's usage says ``--format FORMAT``; the generated table of formats
    (docs/design.md, "Output formats") names each of the command's choices for it."""
    text = (ROOT / "README.md").read_text()
    usage = text.split(f"\nmllog-check {command} PATH...", 1)[1].split("```", 1)[0]
    assert "[--format FORMAT]" in usage
    design = (ROOT / "docs" / "design.md").read_text()
    rows = [line for line in design.splitlines() if "(`reporters.tables.FORMATS`)" in line]
    offered = [row.split(" | ")[1].strip("`") for row in rows if f"`{command}`" in row]
    assert offered == _choices(command)


def test_needs_name_the_extra_modules_of_each_format() -> None:
    """One writer per format, the same for every command: what it imports is the
    format's, never a command's."""
    assert tables.needs("csv") == () and tables.needs("json") == ()
    assert tables.needs("parquet") == ("pyarrow",)
    assert tables.needs("table") == ()


# --- the writers ----------------------------------------------------------------------

SMALL = tables.Table(
    ("name", "n", "seeds"),
    [{"name": "a", "n": 1, "seeds": [1, 2]}, {"name": "b", "n": None}],
    right=("n",),
    title=("T",),
    footer=("end",),
)


def _written(fmt: str, table: tables.Table) -> Any:
    out: io.BytesIO | io.StringIO = io.BytesIO() if tables.FORMATS[fmt].binary else io.StringIO()
    tables.write(fmt, table, out)
    return out.getvalue()


def test_rows_as_mappings_or_sequences_write_the_same() -> None:
    as_lists = tables.Table(SMALL.columns, [["a", 1, [1, 2]], ["b", None, None]])
    for fmt in ("csv", "json", "parquet"):
        assert _written(fmt, SMALL) == _written(fmt, as_lists), fmt


def test_each_writer_on_a_small_table() -> None:
    assert _written("table", SMALL) == "T\nname  n  seeds\na     1  [1, 2]\nb\nend\n"
    assert _written("csv", SMALL) == 'name,n,seeds\na,1,"[1, 2]"\nb,,\n'
    assert json.loads(_written("json", SMALL)) == [
        {"name": "a", "n": 1, "seeds": [1, 2]},
        {"name": "b", "n": None, "seeds": None},
    ]
    back = pq.read_table(io.BytesIO(_written("parquet", SMALL))).to_pydict()
    assert back == {"name": ["a", "b"], "n": [1, None], "seeds": [[1, 2], None]}


def test_json_is_strict_json_whatever_the_values() -> None:
    """One encoder for every command: indent 2, NaN and infinities as null, an integer
    beyond 64 bits (a seed as logged), a value nested deeper than orjson writes and an
    object JSON has no form for as their text (docs/design.md, "Output formats")."""
    table = tables.Table(("x",), [{"x": float("inf")}], document={"x": [float("inf"), 1]})
    assert _written("json", table) == '{\n  "x": [\n    null,\n    1\n  ]\n}\n'
    deep: list[Any] = [1]
    for _ in range(300):
        deep = [deep]
    odd = {"seed": 2**70, "low": -(2**63), "deep": deep, "path": Path("a"), 3: "key"}
    back = json.loads(_written("json", tables.Table(("x",), [], document=odd)))
    assert back["seed"] == str(2**70) and back["low"] == -(2**63) and back["path"] == "a"
    assert back["3"] == "key" and "[[[" in json.dumps(back["deep"])


def test_parquet_keeps_lists_of_one_kind_and_writes_others_as_text() -> None:
    def column(*cells: Any) -> list[Any]:
        table = tables.Table(("c",), [[c] for c in cells])
        return list(pq.read_table(io.BytesIO(_written("parquet", table))).to_pydict()["c"])

    assert column([1, 2], None, [3.5]) == [[1.0, 2.0], None, [3.5]]  # numbers are one kind
    assert column(["a"], ["b", None]) == [["a"], ["b", None]]
    assert column([1], 2) == ["[1]", "2"]  # a list in one row, a number in another
    assert column([1], ["a"]) == ["[1]", "['a']"]
    assert column([[1]], [[2]]) == ["[[1]]", "[[2]]"]
    assert column([2**70]) == [str([2**70])]  # beyond int64


def test_parquet_without_pyarrow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    with pytest.raises(MissingExtra, match=r"pip install 'mllog-check\[analysis\]'"):
        _written("parquet", SMALL)
    with pytest.raises(MissingExtra, match="needs pyarrow"):
        tables.require("parquet", "Parquet output")


def test_the_human_table_needs_no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("rich", "rich.console", "rich.table", "pandas"):
        monkeypatch.setitem(sys.modules, module, None)
    assert _written("table", tables.Table(("a",), [["x"]])) == "a\nx\n"


def test_empty_table_writes_headers_only(tmp_path: Path) -> None:
    empty = tables.Table(("a", "b"), [])
    for fmt in ("csv", "json", "parquet"):
        path = tables.write_file(fmt, empty, tmp_path / f"e.{tables.FORMATS[fmt].suffix}")
        assert path.is_file()
    assert (tmp_path / "e.csv").read_text() == "a,b\n"
    assert (tmp_path / "e.json").read_text() == "[]\n"
    assert list(pd.read_parquet(tmp_path / "e.parquet").columns) == ["a", "b"]


# --- score ----------------------------------------------------------------------------


def _score(args: list[str]) -> dict[str, Any]:
    """Every format score offers, for scores and for runs, written and read back."""
    runner = CliRunner()
    out: dict[str, Any] = {}
    for fmt in _choices("score"):
        for runs in (False, True):
            flags = ["--format", fmt, *(["--runs"] if runs else [])]
            done = runner.invoke(cli, ["score", *args, *flags])
            assert done.exit_code in (0, 1), (fmt, runs, done.output)
            out[fmt, runs] = done.stdout_bytes
            assert done.stdout_bytes, (fmt, runs)
    return out


def _score_agrees(args: list[str]) -> int:
    out = _score(args)
    assert out["json", False] == out["json", True]  # one document: scores and runs
    doc = json.loads(out["json", False])
    for runs, key in ((False, "scores"), (True, "runs")):
        from_csv = _csv(out["csv", runs].decode())
        from_parquet = _parquet(out["parquet", runs])
        assert from_csv == from_parquet, key
        assert len(from_csv) == len(doc[key]) > 0
        from_json = _json_rows(doc[key], set(from_csv[0]))
        assert _only(from_csv, set(from_json[0])) == from_json, key
    rcp = [s["rcp"]["verdict"] for s in doc["scores"]]
    assert [s["rcp_verdict"] for s in _csv(out["csv", False].decode())] == rcp
    return len(doc["runs"])


def test_score_formats_agree_on_a_fixture() -> None:
    assert _score_agrees([str(FIXTURES / "score" / "olympic"), "--ruleset", "1.0.0"]) == 5


def test_score_formats_agree_with_power_logs() -> None:
    args = [str(FIXTURES / "audit" / "power"), "--ruleset", "1.0.0"]
    assert _score_agrees(args) == 5
    assert "Energy to train" in _score(args)["table", False].decode()


@pytest.mark.corpus
def test_score_formats_agree_on_the_corpus(corpus: Path) -> None:
    assert _score_agrees([str(corpus / "v1.0" / "Graphcore")]) >= 10


def test_score_writes_each_format_to_a_file(tmp_path: Path) -> None:
    args = ["score", str(FIXTURES / "score" / "olympic"), "--ruleset", "1.0.0"]
    for fmt in _choices("score"):
        path = tmp_path / f"scores.{tables.FORMATS[fmt].suffix}"
        done = CliRunner().invoke(cli, [*args, "--format", fmt, "-o", str(path)])
        assert done.exit_code == 0 and done.stdout == "", done.output
        same = CliRunner().invoke(cli, [*args, "--format", fmt])
        assert path.read_bytes() == same.stdout_bytes, fmt


# --- cost -----------------------------------------------------------------------------


def _cost_agrees(args: list[str]) -> int:
    out = {}
    for fmt in _choices("cost"):
        done = CliRunner().invoke(cli, ["cost", *args, "--prices", str(PRICES), "--format", fmt])
        assert done.exit_code in (0, 1) and done.stdout, (fmt, done.output)
        out[fmt] = done.stdout
    doc = json.loads(out["json"])
    from_csv = _csv(out["csv"])
    assert [row.pop("note") for row in from_csv] == [doc["note"]] * len(doc["rows"])
    assert from_csv == _json_rows(doc["rows"], set(from_csv[0]))
    assert "not an official MLPerf metric" in out["table"]
    return len(from_csv)


def test_cost_formats_agree_on_a_fixture() -> None:
    assert _cost_agrees([str(FIXTURES / "score" / "olympic"), "--ruleset", "1.0.0"]) == 1


@pytest.mark.corpus
def test_cost_formats_agree_on_the_corpus(corpus: Path) -> None:
    assert _cost_agrees([str(corpus / "v1.0" / "Graphcore")]) >= 2


# --- audit ----------------------------------------------------------------------------


def _audit_agrees(out: Path) -> dict[str, int]:
    counts = {}
    for name in ("runs", "scores"):
        from_csv = _csv((out / f"{name}.csv").read_text())
        assert from_csv == _parquet(out / f"{name}.parquet"), name
        counts[name] = len(from_csv)
    anomalies = _csv((out / "anomalies.csv").read_text())
    document = json.loads((out / "anomalies.json").read_text())
    assert anomalies == _json_rows(document, set(anomalies[0]) if anomalies else set())
    counts["anomalies"] = len(anomalies)
    return counts


def test_audit_files_agree_on_a_fixture(tmp_path: Path) -> None:
    result = run_audit(FIXTURES / "audit" / "round", "1.0.0", jobs=1)
    written = write_outputs(result, tmp_path)
    assert [p.name for p in written] == [f"{n}.{tables.FORMATS[f].suffix}" for n, f in OUTPUT_FILES]
    counts = _audit_agrees(tmp_path)
    assert counts["anomalies"] == len(result.anomalies) > 0 and counts["runs"] > 0


@pytest.mark.corpus
def test_audit_files_agree_on_the_corpus(corpus: Path, tmp_path: Path) -> None:
    write_outputs(run_audit(corpus / "v0.7", jobs=2), tmp_path)
    counts = _audit_agrees(tmp_path)
    assert counts["runs"] >= 200 and counts["anomalies"] > 0


_cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**80), 2**80),
    st.floats(),
    st.text(max_size=6),
    st.lists(st.integers(-5, 5), max_size=2),
)


@given(st.integers(min_value=1, max_value=4), st.data())
def test_a_streamed_json_table_is_the_whole_lists_text(columns: int, data: Any) -> None:
    names = tuple(f"c{i}" for i in range(columns))
    size = data.draw(st.sampled_from([0, 1, 2, 999, 1000, 1001, 2001]))
    row = st.lists(_cells, min_size=columns, max_size=columns)
    rows = [data.draw(row) for _ in range(min(size, 3))]
    rows = [rows[i % len(rows)] for i in range(size)] if rows else []
    out = io.StringIO()
    tables.write_json(tables.Table(names, rows), out)
    whole = [dict(zip(names, r, strict=True)) for r in rows]
    wide = any(isinstance(v, int) and not -(2**63) <= v < 2**64 for r in rows for v in r)
    if not wide:  # the whole list in one call, as before
        option = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
        expected = json_text(orjson.dumps(whole, option=option, default=str).decode()) + "\n"
        assert out.getvalue() == expected
    parsed = json.loads(out.getvalue())
    assert len(parsed) == size
    for got, want in zip(parsed, whole, strict=True):
        for key, value in want.items():
            if isinstance(value, float) and not math.isfinite(value):
                assert got[key] is None
            elif isinstance(value, int) and not isinstance(value, bool) and got[key] != value:
                assert got[key] == str(value)  # beyond 64 bits: its text
